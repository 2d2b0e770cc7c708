// Loading a fixture into a database: idempotent upserts by natural keys.
//
// Imports the generated Prisma client directly, not lib/db/prisma.ts: that module
// is "server-only" and refuses to load outside Next.
import { createDatabaseClient, type Db } from "@/lib/db/connect";
import { HOST, layoutOf, type Layout } from "@/lib/db/layout";
import type { HostField } from "@/lib/db/host-names";
import { Prisma } from "@/lib/generated/prisma/client";
import { OPTIONAL_FIELD_NAMES, OPTIONAL_LEAD_FIELDS } from "@/lib/leads/fields";
import { ensureSource } from "@/lib/leads/sources/ensure-source";
import { prepareDatabase } from "@/lib/startup/prepare";
import type { Fixture } from "./fixture";

type FixtureUser = Fixture["users"][number];
type FixtureReferral = Fixture["referrals"][number];

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
const levels = (layout: Layout, u: FixtureUser) =>
  layout.accessLevels ? Prisma.sql`, ${u.accessLevels}::text[]` : Prisma.empty;

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
    const values: Record<string, unknown> = {
      referrerCustomerId: referrerId,
      leadCustomerId: r.leadCustomerId ?? null,
      leadName: r.leadName,
      mobileNumber: r.leadMobileNumber ?? null,
      status: r.status,
      ...Object.fromEntries(OPTIONAL_FIELD_NAMES.map((name) => [OPTIONAL_LEAD_FIELDS[name].column, r[name] ?? null])),
      createdAt: Prisma.sql`${r.createdAt ?? null}::timestamptz`,
    };
    const columns = (Object.keys(values) as HostField<"Referral">[]).map((field) => HOST.referrals.column(field).text);
    // A record the API created (it has the API's audit entry) is never overwritten by a fixture.
    const written = await tx.$queryRaw<{ id: number }[]>`
      INSERT INTO referrals (id, ${Prisma.raw(columns.join(", "))} ${agentColumn})
      VALUES (${r.id}, ${Prisma.join(Object.values(values))} ${agentValue})
      ON CONFLICT (id) DO UPDATE SET ${Prisma.raw(columns.map((c) => `${c} = EXCLUDED.${c}`).join(", "))}
        ${agentUpdate}
      WHERE NOT EXISTS (SELECT 1 FROM audit_entries a WHERE a.referral_id = referrals.id)
      RETURNING id`;
    if (!written[0])
      throw new Error(`Referral ${r.id} is a lead created through the API; give the fixture record another id`);
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
