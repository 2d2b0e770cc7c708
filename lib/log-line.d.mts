export function logLine(level: "info" | "error", msg: string, fields?: Record<string, unknown>): void;
