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
