// The V8 heap settings the launcher gives `next start` (lib/runtime/start.mjs); the benchmark runs its framework
// floor under the same settings, so that service and floor differ only in what their routes do. Each applies
// unless NODE_OPTIONS sets that option itself.

/**
 * A 1 GB heap limit. Under Node's default here (4 GB) V8 let the heap grow to 240 MB
 * while live data stayed under 80 MB, and the process passed 360 MB; with a lower limit
 * V8 collects sooner and stays near 240 MB (512 MB and 768 MB did the same). It costs
 * CPU: in the benchmark's no-op floor V8 marked the old generation more often (13 full
 * collections in 10 s of POSTs against 2 at 4 GB), about 0.09 ms per request (median of
 * 5 runs each, 0.98 against 0.89 ms); the service measured the same under both.
 *
 * A 32 MB young generation (semi-space; Node's default is 16). A POST's objects live
 * across its wait for PostgreSQL, so with 16 requests in flight many survive a scavenge
 * and are copied or promoted; with twice the room more of them die young. Service
 * against service, taken in turn: cheaper in 6 of 6 rounds, 2 of 5, 9 of 10 and 4 of 5
 * (in the last series by 0.06 ms per request, the median), for about 30 MB more RSS; the
 * floor, whose requests wait for nothing, measured the same (0.98 against 0.96 ms). docs/decisions.md, "Heap".
 */
export function heapArgs(nodeOptions = process.env.NODE_OPTIONS ?? "") {
  return [
    ...(nodeOptions.includes("--max-old-space-size") ? [] : ["--max-old-space-size=1024"]),
    ...(nodeOptions.includes("--max-semi-space-size") ? [] : ["--max-semi-space-size=32"]),
  ];
}
