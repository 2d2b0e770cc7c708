import { ApiError } from "./errors";

/** Largest request body accepted, in bytes (1 MiB); larger ones get 413 PAYLOAD_TOO_LARGE. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON request body: media type application/json (any case, parameters
 * allowed) or 415; at most MAX_BODY_BYTES, refused as soon as that is passed
 * (declared or streamed) or 413; valid UTF-8 JSON, not empty, or 400 INVALID_JSON.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const mediaType = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new ApiError("INVALID_CONTENT_TYPE", "Content-Type must be application/json");
  }
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();

  const text = await readText(request);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_JSON", "Request body is not valid JSON");
  }
}

async function readText(request: Request): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new ApiError("INVALID_JSON", "Request body is not valid UTF-8 JSON");
  }
}

function tooLarge(): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", `Request body is larger than ${MAX_BODY_BYTES} bytes`);
}
