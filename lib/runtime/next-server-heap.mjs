// The V8 heap settings the launcher gives `next start` (lib/runtime/start.mjs); the benchmark runs its framework
// floor under the same settings, so that service and floor differ only in what their routes do. Each applies
// unless NODE_OPTIONS sets that option itself.

/**
 * A heap limit below Node's default makes V8 collect sooner, so the process stays small. The young generation stays
 * at Node's default: twice its size cost about 60 MB of RSS. The figures are in docs/decisions.md, "Heap".
 */
export function heapArgs(nodeOptions = process.env.NODE_OPTIONS ?? "") {
  return nodeOptions.includes("--max-old-space-size") ? [] : ["--max-old-space-size=1024"];
}
