// `npm run db:seed -- <fixture.json>`: loads users, person customers and legacy
// referral records from a JSON fixture into the database at DATABASE_URL or, when
// that is unset, into the embedded database of `npm start` (.data/postgres, port
// EMBEDDED_PG_PORT or 54329, database "leads"; started for the run and stopped
// afterwards if it is not already running). Idempotent: rows are matched by their
// natural keys, so a second run leaves the same rows.
//
// Opens the database through lib/db/connect.ts (the project's one client factory),
// not lib/db/client.ts: that module is "server-only" and refuses to load outside Next.
import { existsSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { z } from "zod";
import { layoutOf, type Layout } from "@/lib/db/layout";
import { createDatabaseClient, type Db } from "@/lib/db/connect";
import { prepareDatabase } from "@/lib/startup/prepare";
import { Prisma } from "@/lib/generated/prisma/client";
import { referralColumns } from "@/lib/leads/lead-rows";
import { ensureSource } from "@/lib/leads/sources";
import { startEmbeddedPostgres } from "./embedded-postgres.mjs";

// The fixture

const text = z.string().nullable().optional();

const user = z.strictObject({
  name: z.string().trim().min(1),
  /** The user's id in the host platform; users without one are matched by name. */
  platformId: z.string().trim().min(1).nullable().optional(),
  accessLevels: z.array(z.string()).default([]),
});

const person = z.strictObject({
  id: z
    .string()
    .trim()
    .min(1)
    .refine((id) => !id.startsWith("src_"), "src_ ids belong to source accounts"),
  name: z.string().trim().min(1),
  mobileNumber: text,
  state: z.string().default(""),
  city: z.string().default(""),
  address: z.string().default(""),
});

const referral = z.strictObject({
  /** The workflow record id (referralId); the natural key of a seeded record. */
  id: z.int().min(1).max(2147483647),
  /** A source account by name (created like the service creates one), or an existing account by id. */
  referrer: z.union([z.string().trim().min(2).max(120), z.strictObject({ customerId: z.string().trim().min(1) })]),
  leadCustomerId: z.string().nullable().optional(),
  leadName: z.string().min(1),
  leadMobileNumber: text,
  status: z.string(),
  leadState: text,
  leadCity: text,
  leadAddress: text,
  relationship: text,
  projectType: text,
  remark: text,
  /** A user of the fixture by platform id or name, or an existing user by platform id. */
  assignedAgent: z.string().nullable().optional(),
  createdAt: z.iso.datetime({ offset: true }).nullable().optional(),
});

export const fixtureSchema = z
  .strictObject({
    /** Types of the sources that referrals name; a name not listed here is created as `other` (decisions.md 8). */
    sources: z.array(z.strictObject({ name: z.string().trim().min(2).max(120), type: z.enum(["ads", "other"]) })).default([]),
    users: z.array(user).default([]),
    persons: z.array(person).default([]),
    referrals: z.array(referral).default([]),
  })
  .superRefine((fixture, ctx) => {
    const unique = (what: string, keys: string[]) => {
      const seen = new Set<string>();
      for (const key of keys) {
        if (seen.has(key)) ctx.addIssue({ code: "custom", message: `${what} ${key} is given more than once` });
        seen.add(key);
      }
    };
    unique("user", fixture.users.map(userKey));
    unique("person", fixture.persons.map((p) => p.id));
    unique("referral", fixture.referrals.map((r) => String(r.id)));
  });

export type Fixture = z.output<typeof fixtureSchema>;
type FixtureUser = Fixture["users"][number];
type FixtureReferral = Fixture["referrals"][number];

function userKey(u: FixtureUser): string {
  return u.platformId ? `platform id ${u.platformId}` : `named ${u.name}`;
}

export async function readFixture(file: string): Promise<Fixture> {
  return fixtureSchema.parse(JSON.parse(await readFile(file, "utf8")));
}

// Loading

export interface SeedSummary {
  users: number;
  persons: number;
  sources: number;
  referrals: number;
}

/**
 * Applies pending migrations and the configured default sources (as the service
 * does on start), then upserts the fixture: sources by normalised name, users by
 * platform id (else name), persons and referrals by their given id.
 */
export async function seed(connectionString: string, fixture: Fixture): Promise<SeedSummary> {
  const db = createDatabaseClient(connectionString);
  try {
    await prepareDatabase(db, connectionString);
    const layout = await layoutOf(db);
    const sourceIds = await seedSources(db, fixture);
    await db.$transaction(
      async (tx) => {
        const userIds = await seedUsers(tx, layout, fixture.users);
        await seedPersons(tx, fixture.persons);
        await seedReferrals(tx, layout, fixture.referrals, sourceIds, userIds);
      },
      { timeout: 120_000 },
    );
    return {
      users: fixture.users.length,
      persons: fixture.persons.length,
      sources: sourceIds.size,
      referrals: fixture.referrals.length,
    };
  } finally {
    await db.$disconnect();
  }
}

type Tx = Prisma.TransactionClient;

/** Source accounts named by referrals, through the service's own idempotent create. Name -> id. */
async function seedSources(db: Db, fixture: Fixture): Promise<Map<string, string>> {
  const types = new Map(fixture.sources.map((s) => [s.name, s.type]));
  const names = new Set([...fixture.sources.map((s) => s.name)]);
  for (const r of fixture.referrals) if (typeof r.referrer === "string") names.add(r.referrer);
  const ids = new Map<string, string>();
  for (const name of names) ids.set(name, (await ensureSource(db, name, types.get(name) ?? "other")).id);
  return ids;
}

/** Users by platform id, or by name when they have none. Platform id and name -> users.id. */
async function seedUsers(tx: Tx, layout: Layout, users: FixtureUser[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const u of users) {
    const id = u.platformId ? await upsertUserByPlatformId(tx, layout, u) : await upsertUserByName(tx, layout, u);
    if (u.platformId) ids.set(u.platformId, id);
    if (!ids.has(u.name)) ids.set(u.name, id);
  }
  return ids;
}

/** access_levels only where the column exists (the legacy layout has none, lib/db/layout.ts). */
const levels = (layout: Layout, u: FixtureUser) => (layout.accessLevels ? Prisma.sql`, ${u.accessLevels}::text[]` : Prisma.empty);

async function upsertUserByPlatformId(tx: Tx, layout: Layout, u: FixtureUser): Promise<number> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO users (platform_id, name ${layout.accessLevels ? Prisma.sql`, access_levels` : Prisma.empty})
    VALUES (${u.platformId}, ${u.name} ${levels(layout, u)})
    ON CONFLICT (platform_id) DO UPDATE SET name = EXCLUDED.name
      ${layout.accessLevels ? Prisma.sql`, access_levels = EXCLUDED.access_levels` : Prisma.empty}
    RETURNING id`;
  return rows[0].id;
}

async function upsertUserByName(tx: Tx, layout: Layout, u: FixtureUser): Promise<number> {
  const updated = await tx.$queryRaw<{ id: number }[]>`
    UPDATE users SET name = name ${layout.accessLevels ? Prisma.sql`, access_levels = ${u.accessLevels}::text[]` : Prisma.empty}
    WHERE id = (SELECT min(id) FROM users WHERE platform_id IS NULL AND name = ${u.name})
    RETURNING id`;
  if (updated[0]) return updated[0].id;
  const rows = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO users (name ${layout.accessLevels ? Prisma.sql`, access_levels` : Prisma.empty})
    VALUES (${u.name} ${levels(layout, u)})
    RETURNING id`;
  return rows[0].id;
}

async function seedPersons(tx: Tx, persons: Fixture["persons"]): Promise<void> {
  for (const p of persons) {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO customers (id, kind, name, mobile_number, state, city, address)
      VALUES (${p.id}, 'person', ${p.name}, ${p.mobileNumber ?? null}, ${p.state}, ${p.city}, ${p.address})
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, mobile_number = EXCLUDED.mobile_number,
        state = EXCLUDED.state, city = EXCLUDED.city, address = EXCLUDED.address
      WHERE customers.kind = 'person'
      RETURNING id`;
    if (!rows[0]) throw new Error(`Person ${p.id}: that id belongs to an account that is not a person`);
  }
}

async function seedReferrals(
  tx: Tx,
  layout: Layout,
  referrals: FixtureReferral[],
  sourceIds: Map<string, string>,
  userIds: Map<string, number>,
): Promise<void> {
  for (const r of referrals) {
    const referrerId = typeof r.referrer === "string" ? (sourceIds.get(r.referrer) as string) : r.referrer.customerId;
    const agentId = r.assignedAgent ? await userId(tx, userIds, r.assignedAgent) : null;
    if (agentId !== null && !layout.assignment) {
      throw new Error(`Referral ${r.id}: this database has no referrals.assigned_agent_id to store assignedAgent`);
    }
    const agentColumn = layout.assignment ? Prisma.sql`, assigned_agent_id` : Prisma.empty;
    const agentValue = layout.assignment ? Prisma.sql`, ${agentId}::int` : Prisma.empty;
    const agentUpdate = layout.assignment ? Prisma.sql`, assigned_agent_id = EXCLUDED.assigned_agent_id` : Prisma.empty;
    // A record the API created (it has the API's audit entry) is never overwritten by a fixture.
    const written = await tx.$queryRaw<{ id: number }[]>`
      INSERT INTO referrals (id, ${referralColumns} ${agentColumn})
      VALUES (${r.id}, ${referrerId}, ${r.leadCustomerId ?? null}, ${r.leadName}, ${r.leadMobileNumber ?? null},
              ${r.status}, ${r.leadState ?? null}, ${r.leadCity ?? null}, ${r.leadAddress ?? null},
              ${r.relationship ?? null}, ${r.projectType ?? null}, ${r.remark ?? null},
              ${r.createdAt ?? null}::timestamptz ${agentValue})
      ON CONFLICT (id) DO UPDATE SET referrer_customer_id = EXCLUDED.referrer_customer_id,
        lead_customer_id = EXCLUDED.lead_customer_id, lead_name = EXCLUDED.lead_name,
        mobile_number = EXCLUDED.mobile_number, status = EXCLUDED.status, state = EXCLUDED.state,
        city = EXCLUDED.city, address = EXCLUDED.address, relationship = EXCLUDED.relationship,
        project_type = EXCLUDED.project_type, remark = EXCLUDED.remark, created_at = EXCLUDED.created_at
        ${agentUpdate}
      WHERE NOT EXISTS (SELECT 1 FROM audit_entries a WHERE a.referral_id = referrals.id)
      RETURNING id`;
    if (!written[0]) throw new Error(`Referral ${r.id} is a lead created through the API; give the fixture record another id`);
  }
  // Ids were given, not drawn from the sequence: move it past them (never back), or the next POST would collide.
  await tx.$queryRaw`
    SELECT setval(s.seq, m.max_id)
    FROM (SELECT pg_get_serial_sequence('referrals', 'id')::regclass AS seq) s,
         (SELECT max(id) AS max_id FROM referrals) m
    WHERE m.max_id > coalesce(pg_sequence_last_value(s.seq), 0)`;
}

/** A fixture user (by platform id or name), else an existing user by platform id. */
async function userId(tx: Tx, userIds: Map<string, number>, key: string): Promise<number> {
  const known = userIds.get(key);
  if (known !== undefined) return known;
  const rows = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM users WHERE platform_id = ${key}`;
  if (!rows[0]) throw new Error(`assignedAgent ${key} is neither a user of the fixture nor a platform id`);
  return rows[0].id;
}

// The command

const EMBEDDED = { user: "postgres", password: "postgres", database: "leads" };

/** DATABASE_URL, or the embedded database of `npm start`, started here (and stopped after) if not running. */
async function targetDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  const url = `postgresql://${EMBEDDED.user}:${EMBEDDED.password}@127.0.0.1:${port}/${EMBEDDED.database}`;
  if (await reachable(url)) return { url, stop: async () => {} };
  const server = await startEmbeddedPostgres({ dir: path.resolve(".data", "postgres"), port, database: EMBEDDED.database });
  return { url: server.url, stop: () => server.stop() };
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) {
    console.error("Usage: npm run db:seed -- <fixture.json>   (for example prisma/seed/demo.json)");
    process.exit(2);
  }
  const fixture = await readFixture(file);
  // The same settings `npm start` reads, so both use the same database.
  if (existsSync(".env.local")) process.loadEnvFile(".env.local");
  const target = await targetDatabase();
  try {
    const summary = await seed(target.url, fixture);
    console.log(
      `Seeded ${summary.users} users, ${summary.persons} persons, ${summary.sources} sources and ` +
        `${summary.referrals} referral records from ${file}.`,
    );
  } finally {
    await target.stop();
  }
}

// Run as a command, not when imported (the tests import seed()). Real paths: the
// script may be reached through a symbolic link.
const invoked = process.argv[1] ? realpathSync(path.resolve(process.argv[1])) : "";
if (invoked === realpathSync(fileURLToPath(import.meta.url))) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      // The message only: a stack or query could carry the connection string.
      console.error(`Seeding failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
