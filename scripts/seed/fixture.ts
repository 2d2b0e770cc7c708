// The fixture file of `npm run db:seed`: its schema (users, person customers,
// legacy referral records, source types) and reading it.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { OPTIONAL_FIELD_NAMES, type OptionalFieldName } from "@/lib/leads/fields";
import { MAX_INT4, referrerName } from "@/lib/leads/schemas";

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
  id: z.int().min(1).max(MAX_INT4),
  /** A source account by name (created like the service creates one), or an existing account by id. */
  referrer: z.union([referrerName, z.strictObject({ customerId: z.string().trim().min(1) })]),
  leadCustomerId: z.string().nullable().optional(),
  leadName: z.string().min(1),
  leadMobileNumber: text,
  status: z.string(),
  /** Each optional field of a lead (lib/leads/fields.ts), stored as given: a legacy record may lack any. */
  ...(Object.fromEntries(OPTIONAL_FIELD_NAMES.map((name) => [name, text])) as Record<OptionalFieldName, typeof text>),
  /** A user of the fixture by platform id or name, or an existing user by platform id. */
  assignedAgent: z.string().nullable().optional(),
  createdAt: z.iso.datetime({ offset: true }).nullable().optional(),
});

export const fixtureSchema = z
  .strictObject({
    /** Types of the sources that referrals name; a name not listed here is created as `other` (decisions.md 8). */
    sources: z.array(z.strictObject({ name: referrerName, type: z.enum(["ads", "other"]) })).default([]),
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
    unique(
      "person",
      fixture.persons.map((p) => p.id),
    );
    unique(
      "referral",
      fixture.referrals.map((r) => String(r.id)),
    );
  });

export type Fixture = z.output<typeof fixtureSchema>;
type FixtureUser = Fixture["users"][number];

function userKey(u: FixtureUser): string {
  return u.platformId ? `platform id ${u.platformId}` : `named ${u.name}`;
}

export async function readFixture(file: string): Promise<Fixture> {
  return fixtureSchema.parse(JSON.parse(await readFile(file, "utf8")));
}
