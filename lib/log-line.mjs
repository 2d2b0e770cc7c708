// The one shape of the service's JSON log lines outside the access log (lib/api/log.ts, which batches its own).

/**
 * One JSON line, `time`, `level` and `msg` first, then the given fields: errors on stderr, the rest on stdout. Callers
 * pass kinds, names and sentences of their own, never what a request carried.
 * @param {"info" | "error"} level
 * @param {string} msg
 * @param {Record<string, unknown>} [fields]
 */
export function logLine(level, msg, fields = {}) {
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}
