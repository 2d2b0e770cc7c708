export const MIN_KEY_LENGTH: number;
export function shortKeyProblem(env?: Record<string, string | undefined>): string | undefined;
export function unusableKeyProblem(env?: Record<string, string | undefined>): string | undefined;
