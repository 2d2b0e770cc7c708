export { type CallOptions, type ClientOptions, DEFAULT_RETRY, LeadsClient, LeadsClientError, type RetryPolicy } from "./client";
export type * from "./types";
