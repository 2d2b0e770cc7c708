// The V8 heap limit the launcher gives `next start` (scripts/start.mjs); the benchmark runs its framework
// floor under the same limit, so that service and floor differ only in what their routes do.

/**
 * A 1 GB heap limit unless NODE_OPTIONS sets one. Under Node's default here (4 GB) V8 let
 * the heap grow to 240 MB while live data stayed under 80 MB, and the process passed
 * 360 MB; with a lower limit V8 collects sooner and stays near 230 MB (512 MB and 768 MB
 * did the same). It costs CPU: in the benchmark's no-op floor V8 marked the old generation
 * more often (13 full collections in 10 s of POSTs against 2 at 4 GB), about 0.09 ms per
 * request (median of 5 runs each, 0.98 against 0.89 ms). README, Benchmark.
 */
export function heapLimitArgs(nodeOptions = process.env.NODE_OPTIONS) {
  return nodeOptions?.includes("--max-old-space-size") ? [] : ["--max-old-space-size=1024"];
}
