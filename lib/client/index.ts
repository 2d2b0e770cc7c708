export { type CallOptions, type ClientOptions, DEFAULT_RETRY, LeadsClient, LeadsClientError, type RetryPolicy } from "@/lib/client/client";
export type * from "@/lib/client/types";
