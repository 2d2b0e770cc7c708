// The floor's own (empty) instrumentation hook. Without one, Next's build of bench/floor took the
// service's instrumentation.ts from the repository root, and the floor ran the service's start-up.
export function register() {}
