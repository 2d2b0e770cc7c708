import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { prepareDatabase } from "./prepare";
import { sendPreparedThrough } from "./prepared";
import { statementName } from "./statement-name";

export type Db = PrismaClient;

interface DbState {
  client: PrismaClient;
  ready?: Promise<void>;
}

// One client (and pg pool) per server process, kept across hot reloads.
const globalForDb = globalThis as typeof globalThis & { leadIntakeDb?: DbState };

const STATEMENT_TIMEOUT_MS = 15_000;

function createState(): DbState {
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) throw new Error("DATABASE_URL is not set");
  const pool = new pg.Pool({
    connectionString,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
    // A database that is down or overloaded fails the request in bounded time.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    // A database that stops answering (frozen, cut off by the network) cannot enforce
    // statement_timeout: without a client-side limit, a query on a pooled connection
    // waited forever. Just above the server's limit, so a live database's own cancel wins.
    query_timeout: STATEMENT_TIMEOUT_MS + 1_000,
  });
  // An idle connection's error (the database restarted) must not crash the server; the next query reports its own.
  pool.on("error", () => {});
  const adapter = new PrismaPg(pool, {
    // Named statements are parsed and planned once per connection, as Prisma's own
    // engine did: about half the database's work for the creation statement. The
    // name follows the SQL text, so each distinct statement has its own.
    statementNameGenerator: ({ sql }) => statementName(sql),
  });
  const client = new PrismaClient({ adapter });
  sendPreparedThrough(client, pool);
  return { client };
}

/**
 * The Prisma client, after pending migrations and the configured default sources
 * have been applied once in this process. A failed preparation (database down) is
 * retried by the next request instead of being remembered.
 */
export async function database(): Promise<Db> {
  const state = (globalForDb.leadIntakeDb ??= createState());
  state.ready ??= prepareDatabase(state.client, process.env.DATABASE_URL as string).catch((error: unknown) => {
    state.ready = undefined;
    throw error;
  });
  await state.ready;
  return state.client;
}
