/**
 * What the service counts for its metrics (lib/instrumentation/metrics.ts, loaded only when metrics are configured).
 * While no observer is registered, metrics cost a property read; labels are fixed words, never what a client sent.
 */
export interface Observer {
  /** One answered API request: its route template, method (or `_OTHER`), status and error code, in seconds. */
  request(route: string, method: string, status: number, code: string | undefined, seconds: number): void;
  /** A lead created: `ads`, `other` or `person` (the referrer's source type), and whether its source is new. */
  leadCreated(sourceType: "ads" | "other" | "person", newSource: boolean): void;
  /** A read refused READS_BUSY. */
  readsBusy(): void;
  /** A request that failed waiting for a pool connection (`pool-timeout`). */
  poolTimeout(): void;
  /** A request refused RATE_LIMITED. */
  rateLimited(operation: "create" | "read"): void;
  /** A limited request that passed uncounted: its share could not be claimed in time (lib/api/rate-limit.ts). */
  rateLimitUncounted(operation: "create" | "read"): void;
}

// Under a registered symbol: Next can give the instrumentation hook and each route their own copy of this module.
const OBSERVER = Symbol.for("lead-intake-service.observer");
const holder = globalThis as typeof globalThis & { [OBSERVER]?: Observer };

export function observer(): Observer | undefined {
  return holder[OBSERVER];
}

export function observeWith(registered: Observer): void {
  holder[OBSERVER] = registered;
}
