/** The closed set of error codes the API answers with, and the status of each. */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  INVALID_CONTENT_TYPE: 415,
  INVALID_AGENT: 422,
  INVALID_REFERRER: 422,
  INTERNAL_ERROR: 500,
  API_NOT_CONFIGURED: 503,
  ASSIGNMENT_NOT_CONFIGURED: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface Issue {
  path: string;
  message: string;
}

/**
 * Bounds of an error answer (decision 14): whatever a client sends, a 400 lists at
 * most MAX_ISSUES issues, then one more at path "" counting the rest, and no path is
 * longer than MAX_PATH_CHARS. Even with every path character escaped to 6 bytes
 * (\uXXXX), 21 issues stay under 30 KB, within the 64 KB promised in the README.
 */
export const MAX_ISSUES = 20;
export const MAX_PATH_CHARS = 200;

/** An issue at a path given as keys: dot-joined, cut to MAX_PATH_CHARS (ending in "…") when longer. */
export function issueAt(path: readonly PropertyKey[], message: string): Issue {
  let joined = path.map(String).join(".");
  if (joined.length > MAX_PATH_CHARS) {
    let cut = MAX_PATH_CHARS - 1;
    // Never split a surrogate pair: half of one is text the answer could not carry as UTF-8.
    if (/[\ud800-\udbff]/.test(joined[cut - 1])) cut -= 1;
    joined = `${joined.slice(0, cut)}…`;
  }
  return { path: joined, message };
}

/** The first MAX_ISSUES of `total` issues found (`first` holds at least those), plus a count of the rest. */
export function boundedIssues(first: readonly Issue[], total = first.length): Issue[] {
  const listed = first.slice(0, MAX_ISSUES);
  if (total <= listed.length) return listed;
  const rest = total - listed.length;
  return [...listed, { path: "", message: `${rest} more ${rest === 1 ? "issue" : "issues"} not listed (only the first ${MAX_ISSUES} are)` }];
}

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: Issue[],
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_STATUS[code];
  }

  toJSON() {
    return this.issues
      ? { error: this.message, code: this.code, issues: this.issues }
      : { error: this.message, code: this.code };
  }
}
