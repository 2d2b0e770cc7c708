// The floor's own (empty) instrumentation hook: without one, Next's build of bench/floor would take the service's
// instrumentation.ts from the repository root, and the floor would run the service's start-up.
export function register() {}
