type Env = Record<string, string | undefined>;
interface Range {
  fallback: number | undefined;
  min: number;
  max: number;
}
export const NUMERIC_SETTINGS: {
  PORT: Range & { fallback: number };
  EMBEDDED_PG_PORT: Range & { fallback: number };
  DATABASE_POOL_SIZE: Range & { fallback: number };
  DATABASE_READ_CONNECTIONS: Range & { fallback: undefined };
  LEADS_MIGRATION_LOCK_TIMEOUT: Range & { fallback: number };
  OTEL_METRIC_EXPORT_INTERVAL: Range & { fallback: number };
};
export type NumericSetting = keyof typeof NUMERIC_SETTINGS;
export function numericSetting<Name extends NumericSetting>(
  name: Name,
  env?: Env,
): (typeof NUMERIC_SETTINGS)[Name]["fallback"] | number;
export type LimitedOperation = "create" | "read";
export const RATE_LIMIT_VARIABLES: Record<LimitedOperation, string>;
export interface RateLimit {
  requests: number;
  periodSeconds: number;
}
export function rateLimitsOf(env?: Env): Partial<Record<LimitedOperation, RateLimit>>;
export function metricsPortOf(env?: Env): number | undefined;
export function settingsProblem(env?: Env): string | undefined;
export function refuseDataOperations(): void;
export function dataOperationsRefused(): boolean;
export function untilConfigured(problem: string): string;
