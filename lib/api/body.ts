import { ApiError, boundedIssues, issueAt, MAX_BODY_BYTES, MAX_ISSUES, type Issue } from "@/lib/api/errors";

/**
 * Deepest nesting of arrays and objects accepted in a body (a valid lead nests 2 deep). Checked on the text before
 * it is parsed, since every later step costs in proportion to the depth (docs/decisions.md, "Bounded refusals").
 */
export const MAX_NESTING_DEPTH = 32;

/**
 * Reads a JSON request body, checked in this order: media type (415), size as soon as it is passed (413), nesting
 * depth (400), UTF-8 JSON (400 INVALID_JSON), text the database cannot store (400 INVALID_INPUT).
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const mediaType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new ApiError("INVALID_CONTENT_TYPE");
  }
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw new ApiError("PAYLOAD_TOO_LARGE");

  const text = await readText(request);
  if (nestingDepth(text, MAX_NESTING_DEPTH) > MAX_NESTING_DEPTH) {
    throw new ApiError("INVALID_INPUT", "Invalid request body", [
      { path: "", message: `Nested more than ${MAX_NESTING_DEPTH} levels deep (arrays and objects)` },
    ]);
  }
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
 * How deep `[` and `{` nest in JSON text, outside strings; stops counting once past
 * `limit`. One pass over the characters, whether or not the text is valid JSON.
 */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Strings PostgreSQL cannot store as sent: U+0000, and unpaired surrogates, which have no UTF-8 form. One issue per
 * string, in body order; the first MAX_ISSUES are listed and the rest only counted.
 */
export function unstorableText(body: unknown): Issue[] {
  const listed: Issue[] = [];
  let found = 0;
  const pending: [unknown, PathLink | null][] = [[body, null]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === "string" && (value.includes("\0") || !isWellFormed(value))) {
      if (found++ < MAX_ISSUES) listed.push(issueAt(keysOf(path), "Must not contain U+0000 or unpaired surrogates"));
    } else if (value !== null && typeof value === "object") {
      // Pushed last to first, so that they come off the stack in body order.
      for (const [key, item] of Object.entries(value).reverse()) pending.push([item, { up: path, key }]);
    }
  }
  return boundedIssues(listed, found);
}

/** A path kept as a link to its parent's: constant work per value walked, keys listed only when reported. */
interface PathLink {
  up: PathLink | null;
  key: string;
}

function keysOf(link: PathLink | null): string[] {
  const keys: string[] = [];
  for (; link; link = link.up) keys.push(link.key);
  return keys.reverse();
}

/** String.prototype.isWellFormed (Node 20), typed here for hosts whose TypeScript lib is older than ES2024. */
const isWellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();

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
