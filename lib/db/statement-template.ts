import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client";

/** A statement as sent: its text and this request's values for its placeholders. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** A value of a template, read from each request's arguments when the statement is sent. */
export class Slot<A> {
  constructor(readonly read: (args: A) => unknown) {}
}

/**
 * A statement built once, with Slots where its values go: per request only its values are read, in the order of its
 * placeholders, and its text is the same string every time (docs/decisions.md, "Per-request work computed once").
 */
export function builtOnce<A>(sql: Prisma.Sql): (args: A) => Statement {
  const text = sql.text;
  const slots = sql.values;
  return (args) => ({ text, values: slots.map((value) => (value instanceof Slot ? value.read(args) : value)) });
}

/** Sends a built statement through Prisma's raw query: its result types, its pool and its transactions. */
export function queryBuilt<Row>(db: PrismaClient, { text, values }: Statement): Prisma.PrismaPromise<Row[]> {
  return db.$queryRawUnsafe<Row[]>(text, ...values);
}

/**
 * Statements built once per shape, each on its shape's first use: `keyOf` names a shape from the code's own values
 * (a referrer's kind, a layout, the fields asked), never from a client's, so the number kept is bounded.
 */
export function builtPerShape<S, A>(keyOf: (shape: S) => string, build: (shape: S) => Prisma.Sql) {
  const built = new Map<string, (args: A) => Statement>();
  return (shape: S): ((args: A) => Statement) => {
    const key = keyOf(shape);
    let statement = built.get(key);
    if (!statement) built.set(key, (statement = builtOnce<A>(build(shape))));
    return statement;
  };
}
