export const ENV_FILE: string;
export const DEFAULT_PORT: number;
export class LocalEnvError extends Error {}
export function loadLocalEnv(): boolean;
export function localPort(env?: Record<string, string | undefined>): number;
export function localBaseUrl(env?: Record<string, string | undefined>): string;
