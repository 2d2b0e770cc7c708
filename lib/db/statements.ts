import { createHash } from "node:crypto";
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  SqlResultSet,
  Transaction,
} from "@prisma/driver-adapter-utils";

/**
 * Named prepared statements, renamed after the host changes a table: a cached statement whose result columns
 * change type fails with 0A000 on every use (docs/decisions.md, "Named prepared statements").
 */
const MAX_STATEMENTS = 1000;

export class StatementNames {
  private generation = 0;
  private readonly hashes = new Map<string, string>();

  /** The name follows the SQL text, so each distinct statement has its own. */
  readonly nameOf = ({ sql }: SqlQuery): string => this.name(sql);

  /**
   * Hashed once per text, not per query (docs/decisions.md, "Per-request work computed once"); the bound guards
   * against a statement shape that varies with its input.
   */
  name(sql: string): string {
    let hash = this.hashes.get(sql);
    if (hash === undefined) {
      if (this.hashes.size >= MAX_STATEMENTS) this.hashes.clear();
      hash = createHash("sha1").update(sql).digest("base64url");
      this.hashes.set(sql, hash);
    }
    return `lead_intake_${this.generation}_${hash}`;
  }

  /** Moves to new names, once per failed generation even when many queries fail together. */
  renew(failedGeneration: number): void {
    if (failedGeneration === this.generation) this.generation++;
  }

  get current(): number {
    return this.generation;
  }
}

/** PostgreSQL's 0A000 as the pg adapter reports it (a DriverAdapterError of kind "postgres"), or as pg does. */
export function planChanged(error: unknown): boolean {
  const { cause, code } = (error ?? {}) as { cause?: { kind?: unknown; code?: unknown }; code?: unknown };
  return code === "0A000" || (cause?.kind === "postgres" && cause.code === "0A000");
}

type Run = "queryRaw" | "executeRaw";

/** Runs one query; on 0A000 renews the names, then retries once (`retry`) or rethrows. */
async function recovering<R extends Run>(
  target: SqlQueryable,
  run: R,
  query: SqlQuery,
  names: StatementNames,
  retry: boolean,
): Promise<Awaited<ReturnType<SqlQueryable[R]>>> {
  type Result = Awaited<ReturnType<SqlQueryable[R]>>;
  const generation = names.current;
  try {
    return (await target[run](query)) as Result;
  } catch (error) {
    if (!planChanged(error)) throw error;
    names.renew(generation);
    if (!retry) throw error;
    return (await target[run](query)) as Result;
  }
}

/** The pg adapter factory, with the recovery above. */
export function recoveringPlanChanges(inner: SqlDriverAdapterFactory, names: StatementNames): SqlDriverAdapterFactory {
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => new RecoveringAdapter(await inner.connect(), names),
  };
}

/** Queries through `inner` with the recovery above; `retry` only outside a transaction. */
abstract class Recovering {
  readonly provider: SqlDriverAdapter["provider"];
  readonly adapterName: string;

  constructor(
    private readonly queryable: SqlQueryable,
    protected readonly names: StatementNames,
    private readonly retry: boolean,
  ) {
    this.provider = queryable.provider;
    this.adapterName = queryable.adapterName;
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return recovering(this.queryable, "queryRaw", query, this.names, this.retry);
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return recovering(this.queryable, "executeRaw", query, this.names, this.retry);
  }
}

class RecoveringAdapter extends Recovering implements SqlDriverAdapter {
  readonly getConnectionInfo: SqlDriverAdapter["getConnectionInfo"];

  constructor(
    private readonly inner: SqlDriverAdapter,
    names: StatementNames,
  ) {
    super(inner, names, true);
    this.getConnectionInfo = inner.getConnectionInfo?.bind(inner);
  }

  executeScript(script: string): Promise<void> {
    return this.inner.executeScript(script);
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    return new RenewingTransaction(await this.inner.startTransaction(isolationLevel), this.names);
  }

  dispose(): Promise<void> {
    return this.inner.dispose();
  }
}

/** Inside a transaction: renews the names on 0A000 but never retries (the transaction is aborted). */
class RenewingTransaction extends Recovering implements Transaction {
  readonly options: Transaction["options"];

  constructor(
    private readonly inner: Transaction,
    names: StatementNames,
  ) {
    super(inner, names, false);
    this.options = inner.options;
  }

  commit(): Promise<void> {
    return this.inner.commit();
  }

  rollback(): Promise<void> {
    return this.inner.rollback();
  }
}
