export function heapLimitArgs(nodeOptions?: string): string[];
