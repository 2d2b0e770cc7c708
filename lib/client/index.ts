export {
  backoffMs,
  type CallOptions,
  type ClientOptions,
  DEFAULT_RETRY,
  LeadsClient,
  LeadsClientError,
  type RetryPolicy,
} from "./client.js";
export { ERROR_CODES } from "./contract.js";
export type * from "./types.js";
