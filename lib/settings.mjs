// The one home of every setting read from the environment that can be mistyped: the numeric ones, the rate limits
// and the metrics port. The launcher and `next start` both check them at start: a typo is one sentence, never a NaN.

/** @typedef {Record<string, string | undefined>} Env */

/** Each numeric variable, its default (undefined: derived from another, see README) and its range. */
export const NUMERIC_SETTINGS = {
  PORT: { fallback: 3000, min: 1, max: 65535 },
  EMBEDDED_PG_PORT: { fallback: 54329, min: 1, max: 65535 },
  DATABASE_POOL_SIZE: { fallback: 10, min: 1, max: 1000 },
  DATABASE_READ_CONNECTIONS: { fallback: /** @type {undefined} */ (undefined), min: 1, max: 1000 },
  LEADS_MIGRATION_LOCK_TIMEOUT: { fallback: 60, min: 1, max: 86400 },
  // Milliseconds; a day at most, since a timer past 2^31 ms fires at once, every millisecond.
  OTEL_METRIC_EXPORT_INTERVAL: { fallback: 60000, min: 100, max: 86400000 },
};

/** @typedef {keyof typeof NUMERIC_SETTINGS} NumericSetting */

/**
 * One sentence refusing the first numeric setting that is not a whole number in its range, or undefined.
 * @param {Env} [env]
 */
function numericSettingsProblem(env = process.env) {
  for (const name of /** @type {NumericSetting[]} */ (Object.keys(NUMERIC_SETTINGS))) {
    const problem = problemOf(name, env[name]);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The setting's value, its default when unset or empty; throws the sentence of numericSettingsProblem when invalid.
 * @template {NumericSetting} Name
 * @param {Name} name
 * @param {Env} [env]
 * @returns {(typeof NUMERIC_SETTINGS)[Name]["fallback"] | number}
 */
export function numericSetting(name, env = process.env) {
  const value = env[name];
  const problem = problemOf(name, value);
  if (problem) throw new Error(problem);
  return value === undefined || value === "" ? NUMERIC_SETTINGS[name].fallback : Number(value);
}

/**
 * @param {NumericSetting} name
 * @param {string | undefined} value
 */
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

/** The rate limits' variables (lib/api/rate-limit.ts): lead creation (POST) and the reads (the GET operations). */
export const RATE_LIMIT_VARIABLES = { create: "LEADS_RATE_LIMIT_CREATE", read: "LEADS_RATE_LIMIT_READ" };
/** @typedef {keyof typeof RATE_LIMIT_VARIABLES} LimitedOperation */
/** @typedef {{ requests: number, periodSeconds: number }} RateLimit */
const PERIODS = { s: 1, sec: 1, second: 1, min: 60, minute: 60, h: 3600, hour: 3600 };
const LIMIT = /^([1-9][0-9]{0,8})\/(s|sec|second|min|minute|h|hour)$/;

/**
 * The rate limits set (off when unset or empty); a value that is not `<requests>/<s|min|hour>` throws one sentence
 * naming the variable.
 * @param {Env} [env]
 */
export function rateLimitsOf(env = process.env) {
  /** @type {Partial<Record<LimitedOperation, RateLimit>>} */
  const limits = {};
  for (const [operation, variable] of /** @type {[LimitedOperation, string][]} */ (
    Object.entries(RATE_LIMIT_VARIABLES)
  )) {
    const value = env[variable]?.trim();
    if (!value) continue;
    const match = LIMIT.exec(value);
    if (!match) {
      throw new Error(
        `${variable} must be a number of requests per second, minute or hour, such as 600/min (got "${value.slice(0, 40)}")`,
      );
    }
    limits[operation] = {
      requests: Number(match[1]),
      periodSeconds: PERIODS[/** @type {keyof typeof PERIODS} */ (match[2])],
    };
  }
  return limits;
}

/**
 * LEADS_METRICS_PORT as a port number, or undefined when unset; a value that is no port throws one sentence.
 * @param {Env} [env]
 */
export function metricsPortOf(env = process.env) {
  const value = env.LEADS_METRICS_PORT?.trim();
  if (!value) return undefined;
  const port = Number(value);
  if (!/^[0-9]+$/.test(value) || port < 1 || port > 65535)
    throw new Error(`LEADS_METRICS_PORT must be a port number from 1 to 65535 (got "${value.slice(0, 40)}")`);
  if (port === numericSetting("PORT", env))
    throw new Error("LEADS_METRICS_PORT must differ from PORT: metrics are never served on the application's port");
  return port;
}

/**
 * One sentence refusing the first setting that cannot be read (numeric, rate limit, metrics port), or undefined.
 * @param {Env} [env]
 * @returns {string | undefined}
 */
export function settingsProblem(env = process.env) {
  const numeric = numericSettingsProblem(env);
  if (numeric) return numeric;
  try {
    rateLimitsOf(env);
    metricsPortOf(env);
  } catch (error) {
    return /** @type {Error} */ (error).message;
  }
  return undefined;
}

/**
 * What a host's `next start` says at start when the data operations will answer 503 API_NOT_CONFIGURED.
 * @param {string} problem
 */
export function untilConfigured(problem) {
  return `${problem}; until then the lead intake API answers 503 API_NOT_CONFIGURED`;
}

// Under a registered symbol: Next gives instrumentation.ts and each route their own copy of this module.
const UNREADABLE = Symbol.for("lead-intake-service.unreadable-setting");
/** @type {Record<symbol, boolean | undefined>} */
const shared = /** @type {any} */ (globalThis);

/** For a host's `next start` (instrumentation.ts): a setting could not be read, so the data operations answer 503. */
export function refuseDataOperations() {
  shared[UNREADABLE] = true;
}

/** Whether instrumentation.ts found a setting it could not read (lib/api/auth.ts answers 503 API_NOT_CONFIGURED). */
export function dataOperationsRefused() {
  return shared[UNREADABLE] === true;
}
