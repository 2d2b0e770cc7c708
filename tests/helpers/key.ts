/** The key every test server and in-process call uses: as long as lib/api/api-key.mjs requires, and more. */
export const TEST_KEY = "test-key-0123456789-0123456789-0123456789";

type KeyVariable = "LEADS_API_KEY" | "LEADS_API_KEY_PREVIOUS";

/**
 * Runs `act` with the server's key variables set as given (undefined: unset) in this process, for in-process route
 * calls, and restores them after.
 */
export async function withKeys<T>(keys: Partial<Record<KeyVariable, string | undefined>>, act: () => Promise<T>) {
  const saved = Object.fromEntries(Object.keys(keys).map((name) => [name, process.env[name]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(keys);
  try {
    return await act();
  } finally {
    set(saved);
  }
}

/** Runs `act` while the module is not configured: no LEADS_API_KEY, so data operations answer 503. */
export const notConfigured = <T>(act: () => Promise<T>) => withKeys({ LEADS_API_KEY: undefined }, act);
