// The one rule for how long a configured key must be: the launcher (lib/runtime/start.mjs) refuses to start with a
// shorter one; inside a host's own `next start` the data operations refuse it (lib/api/auth.ts), so the host's own
// pages keep serving, and instrumentation.ts says so once at start.
import { untilConfigured } from "../settings.mjs";

/**
 * 32 characters carry 128 bits even as hex (192 as base64), beyond guessing at any request rate; the launcher's
 * generated key is 46 and `openssl rand -base64 32` gives 44.
 */
export const MIN_KEY_LENGTH = 32;

/** The keys a request may present (docs/operating.md, "Key rotation"). */
const KEY_VARIABLES = ["LEADS_API_KEY", "LEADS_API_KEY_PREVIOUS"];

/**
 * One sentence refusing the first configured key shorter than MIN_KEY_LENGTH, or undefined when none is.
 * @param {import("../settings.mjs").Env} [env]
 * @returns {string | undefined}
 */
export function shortKeyProblem(env = process.env) {
  for (const name of KEY_VARIABLES) {
    const key = env[name];
    if (key && key.length < MIN_KEY_LENGTH) {
      return `${name} is ${key.length} characters long, under the minimum of ${MIN_KEY_LENGTH}; set a longer random key (for example from: openssl rand -base64 32) and start again`;
    }
  }
  return undefined;
}

/**
 * For a host's `next start`: one sentence when the data operations will answer 503 API_NOT_CONFIGURED (no current key,
 * or a key under MIN_KEY_LENGTH), or undefined when the key is usable.
 * @param {import("../settings.mjs").Env} [env]
 */
export function unusableKeyProblem(env = process.env) {
  const problem = env.LEADS_API_KEY
    ? shortKeyProblem(env)
    : `LEADS_API_KEY is not set; set a random key of at least ${MIN_KEY_LENGTH} characters (for example from: openssl rand -base64 32) and start again`;
  return problem && untilConfigured(problem);
}
