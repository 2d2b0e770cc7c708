// The one home of every numeric setting read from the environment: its default and the whole numbers it may be.
// Checked at start by the launcher (lib/runtime/start.mjs) and by `next start` itself (instrumentation.ts), so a
// mistyped value stops the start in one sentence instead of running on as NaN.

/** Each numeric variable, its default (undefined: derived from another, see README) and its range. */
export const NUMERIC_SETTINGS = {
  PORT: { fallback: 3000, min: 1, max: 65535 },
  EMBEDDED_PG_PORT: { fallback: 54329, min: 1, max: 65535 },
  DATABASE_POOL_SIZE: { fallback: 10, min: 1, max: 1000 },
  DATABASE_READ_CONNECTIONS: { fallback: undefined, min: 1, max: 1000 },
  LEADS_MIGRATION_LOCK_TIMEOUT: { fallback: 60, min: 1, max: 86400 },
};

/** One sentence refusing the first numeric setting that is not a whole number in its range, or undefined. */
export function numericSettingsProblem(env = process.env) {
  for (const name of Object.keys(NUMERIC_SETTINGS)) {
    const problem = problemOf(name, env[name]);
    if (problem) return problem;
  }
  return undefined;
}

/** The setting's value, its default when unset or empty; throws the sentence of numericSettingsProblem when invalid. */
export function numericSetting(name, env = process.env) {
  const value = env[name];
  const problem = problemOf(name, value);
  if (problem) throw new Error(problem);
  return value === undefined || value === "" ? NUMERIC_SETTINGS[name].fallback : Number(value);
}

function problemOf(name, value) {
  if (value === undefined || value === "") return undefined;
  const { min, max } = NUMERIC_SETTINGS[name];
  if (/^[0-9]{1,10}$/.test(value) && Number(value) >= min && Number(value) <= max) return undefined;
  const shown = value.length > 20 ? `${value.slice(0, 20)}...` : value;
  return (
    `${name} is ${JSON.stringify(shown)}, not a whole number from ${min} to ${max}; ` +
    "set it to one, or unset it for the default, and start again"
  );
}
