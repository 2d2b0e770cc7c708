// The one rule for how long a configured key must be, checked before anything is
// served: by the launcher (lib/runtime/start.mjs) and by `next start` itself
// (instrumentation.ts), so a host running its own `next start` is held to it too.

/**
 * 32 characters carry 128 bits even as hex (192 as base64), beyond guessing at any request rate; the launcher's
 * generated key is 46 and `openssl rand -base64 32` gives 44.
 */
export const MIN_KEY_LENGTH = 32;

/** The keys a request may present (docs/operating.md, "Key rotation"). */
const KEY_VARIABLES = ["LEADS_API_KEY", "LEADS_API_KEY_PREVIOUS"];

/** One sentence refusing the first configured key shorter than MIN_KEY_LENGTH, or undefined when none is. */
export function shortKeyProblem(env = process.env) {
  for (const name of KEY_VARIABLES) {
    const key = env[name];
    if (key && key.length < MIN_KEY_LENGTH) {
      return `${name} is ${key.length} characters long, under the minimum of ${MIN_KEY_LENGTH}; set a longer random key (for example from: openssl rand -base64 32) and start again`;
    }
  }
  return undefined;
}
