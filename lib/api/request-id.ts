import { randomUUID } from "node:crypto";
import { configuredKeys } from "@/lib/api/auth";

/** A caller's own X-Request-Id is kept when it is 1 to 128 of these characters. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A run of this many letters and digits of a key, found anywhere in an id, is taken for the key. */
const KEY_RUN = 16;

/**
 * The request's id (docs/operating.md, "Response headers"): the caller's valid X-Request-Id, else a new UUID. It is
 * echoed in X-Request-Id, in error bodies and in every log line, so an id holding a configured key in any form (a key
 * pasted into the wrong header, whole or in part, in any letter case, between any separators) is replaced too.
 */
export function requestIdOf(request: { headers: Pick<Headers, "get"> }): string {
  const given = request.headers.get("x-request-id");
  return given !== null && VALID_REQUEST_ID.test(given) && !holdsKey(given) ? given : randomUUID();
}

function holdsKey(id: string): boolean {
  const lower = id.toLowerCase();
  const letters = lettersOf(id);
  return configuredKeys().some(
    (key) => lower.includes(key.toLowerCase()) || keyRunsOf(key).some((run) => letters.includes(run)),
  );
}

function lettersOf(value: string): string {
  return value.toLowerCase().replace(/[^a-z0-9]/g, "");
}

// Computed once per key value, not per request (docs/decisions.md, "Per-request work computed once").
const runs = new Map<string, string[]>();

/** Every run of KEY_RUN letters and digits of a key, as an id would hold them. */
function keyRunsOf(key: string): string[] {
  let found = runs.get(key);
  if (found === undefined) {
    if (runs.size >= 2) runs.clear(); // the current and the previous key
    const letters = lettersOf(key);
    found = [];
    for (let i = 0; i + KEY_RUN <= letters.length; i++) found.push(letters.slice(i, i + KEY_RUN));
    runs.set(key, found);
  }
  return found;
}
