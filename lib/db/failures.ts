import pg from "pg";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * What kind of database failure an error is, for the log line of a failed request (docs/operating.md, "Access log
 * and failure kinds"). Only fixed labels and codes come out of here, never a message (it can quote SQL or values).
 */
export type FailureKind =
  | "pool-timeout"
  | "connect-timeout"
  | "query-timeout"
  | "statement-timeout"
  | "lock-timeout"
  | "transaction-timeout"
  | "connection-refused"
  | "connection-lost"
  | "too-many-connections"
  | "authentication-failed"
  | "database-missing"
  | "schema-mismatch"
  | "plan-changed"
  | "write-conflict"
  | "permission-denied"
  | "database-error"
  | "unexpected";

export interface Failure {
  kind: FailureKind;
  /** SQLSTATE, Prisma or socket code when there is one. */
  code?: string;
}

/** Errors that pg and pg-pool raise with a fixed message and no code. */
const DRIVER_MESSAGES = new Map<string, FailureKind>([
  ["timeout exceeded when trying to connect", "pool-timeout"],
  ["Connection terminated due to connection timeout", "connect-timeout"],
  ["Query read timeout", "query-timeout"],
  ["Connection terminated unexpectedly", "connection-lost"],
  ["Connection terminated", "connection-lost"],
]);

/** The pg adapter's error kinds (DriverAdapterError causes). */
const ADAPTER_KINDS = new Map<string, FailureKind>([
  ["DatabaseNotReachable", "connection-refused"],
  ["ConnectionClosed", "connection-lost"],
  ["SocketTimeout", "connect-timeout"],
  ["TooManyConnections", "too-many-connections"],
  ["AuthenticationFailed", "authentication-failed"],
  ["DatabaseAccessDenied", "authentication-failed"],
  ["DatabaseDoesNotExist", "database-missing"],
  ["TableDoesNotExist", "schema-mismatch"],
  ["ColumnNotFound", "schema-mismatch"],
  ["TransactionWriteConflict", "write-conflict"],
]);

/** SQLSTATE codes and socket error codes. */
const CODES = new Map<string, FailureKind>([
  ["57014", "statement-timeout"],
  ["55P03", "lock-timeout"],
  ["0A000", "plan-changed"],
  ["57P01", "connection-lost"],
  ["57P02", "connection-lost"],
  ["57P03", "connection-refused"],
  ["53300", "too-many-connections"],
  ["28P01", "authentication-failed"],
  ["28000", "authentication-failed"],
  ["3D000", "database-missing"],
  ["42P01", "schema-mismatch"],
  ["42703", "schema-mismatch"],
  ["40001", "write-conflict"],
  ["40P01", "write-conflict"],
  ["42501", "permission-denied"],
  ["ECONNREFUSED", "connection-refused"],
  ["ENOTFOUND", "connection-refused"],
  ["ECONNRESET", "connection-lost"],
  ["ETIMEDOUT", "connect-timeout"],
  // Prisma: can't reach the server; pool timeout; transaction could not start or expired.
  ["P1001", "connection-refused"],
  ["P2024", "pool-timeout"],
  ["P2028", "transaction-timeout"],
]);

interface Described {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  meta?: { driverAdapterError?: Described };
  cause?: { kind?: unknown; code?: unknown; originalCode?: unknown };
}

export function classifyFailure(error: unknown): Failure {
  if (error === null || typeof error !== "object") return { kind: "unexpected" };
  const described = error as Described;
  // Prisma wraps the adapter's error: P2010 "raw query failed" says nothing by itself.
  const cause = (described.meta?.driverAdapterError ?? described).cause;
  if (cause && typeof cause.kind === "string") {
    const code =
      typeof cause.originalCode === "string"
        ? cause.originalCode
        : typeof cause.code === "string"
          ? cause.code
          : undefined;
    const kind = ADAPTER_KINDS.get(cause.kind) ?? (code ? CODES.get(code) : undefined) ?? "database-error";
    return code ? { kind, code } : { kind };
  }
  const code = typeof described.code === "string" ? described.code : undefined;
  const kind =
    (code ? CODES.get(code) : undefined) ??
    (typeof described.message === "string" ? DRIVER_MESSAGES.get(described.message) : undefined);
  if (kind) return code ? { kind, code } : { kind };
  // Any other error PostgreSQL itself reported (pg's DatabaseError carries a severity).
  if (code && typeof (error as { severity?: unknown }).severity === "string") return { kind: "database-error", code };
  return code ? { kind: "unexpected", code } : { kind: "unexpected" };
}

/**
 * A unique key was taken: P2002 from model queries; from raw SQL, P2010 carrying the driver's
 * UniqueConstraintViolation; from a statement sent straight through pg (queryPrepared), SQLSTATE 23505.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return error.code === "23505";
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  const cause = (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause;
  return error.code === "P2002" || (error.code === "P2010" && cause?.kind === "UniqueConstraintViolation");
}
