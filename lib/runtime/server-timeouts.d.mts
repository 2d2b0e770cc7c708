export const REQUEST_TIMEOUT_MS: number;
export const HEADERS_TIMEOUT_MS: number;
export const CHECK_INTERVAL_MS: number;
export const WRITE_TIMEOUT_MS: number;
