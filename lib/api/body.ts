import { ApiError, MAX_BODY_BYTES, type Issue } from "./errors";

export { MAX_BODY_BYTES };

/**
 * Reads a JSON request body: media type application/json (any case, parameters
 * allowed) or 415; at most MAX_BODY_BYTES, refused as soon as that is passed
 * (declared or streamed) or 413; valid UTF-8 JSON, not empty, or 400 INVALID_JSON;
 * no text the database cannot store as sent, or 400 INVALID_INPUT.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const mediaType = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new ApiError("INVALID_CONTENT_TYPE");
  }
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw new ApiError("PAYLOAD_TOO_LARGE");

  const text = await readText(request);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_JSON");
  }
  // Only a \u escape can put U+0000 or a lone surrogate into valid JSON read from valid UTF-8.
  const issues = text.includes("\\u") ? unstorableText(body) : [];
  if (issues.length) throw new ApiError("INVALID_INPUT", "Invalid request body", issues);
  return body;
}

/**
 * Strings PostgreSQL cannot store as sent: U+0000 (text cannot hold it, so the
 * insert failed with a 500) and unpaired surrogates (they have no UTF-8 form, so
 * U+FFFD was saved while the answer echoed the original). One issue per string,
 * at its dot-joined path; walked without recursion, as bodies may nest deeply.
 */
function unstorableText(body: unknown): Issue[] {
  const issues: Issue[] = [];
  const pending: [unknown, string][] = [[body, ""]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === "string" && (value.includes("\0") || !value.isWellFormed())) {
      issues.push({ path, message: "Must not contain U+0000 or unpaired surrogates" });
    } else if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) pending.push([child, path ? `${path}.${key}` : key]);
    }
  }
  return issues.reverse();
}

// Decoding a whole buffer (no `stream` option) keeps no state between calls: one decoder serves every request.
const utf8 = new TextDecoder("utf-8", { fatal: true });

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
        throw new ApiError("PAYLOAD_TOO_LARGE");
      }
      chunks.push(value);
    }
  }
  try {
    // A body that arrived in one chunk (any lead) is decoded where it is, not copied first.
    return utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  } catch {
    throw new ApiError("INVALID_JSON", "Request body is not valid UTF-8 JSON");
  }
}
