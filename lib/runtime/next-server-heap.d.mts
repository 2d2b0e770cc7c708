export function heapArgs(nodeOptions?: string): string[];
