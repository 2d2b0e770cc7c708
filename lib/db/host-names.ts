import { z } from "zod/v4";
import resolved from "@/lib/db/host-names.json";

/**
 * The host's tables and columns for the module's host models (prisma/schema.prisma's Customer, User, Referral and
 * AuditEntry), as lib/db/host-names.json holds them: the module's own names here, the host's once `host:install` has
 * resolved them (docs/host-guide.md, "Your names"). Every statement about a host table is built from this value.
 */
export const HOST_FIELDS = {
  Customer: ["id", "kind", "name", "mobileNumber", "state", "city", "address", "sourceType", "createdAt"],
  User: ["id", "platformId", "name", "accessLevels", "createdAt"],
  Referral: [
    "id",
    "referrerCustomerId",
    "leadCustomerId",
    "leadName",
    "mobileNumber",
    "status",
    "state",
    "city",
    "address",
    "relationship",
    "projectType",
    "remark",
    "assignedAgentId",
    "preferredAgentId",
    "createdAt",
  ],
  AuditEntry: ["id", "referralId", "action", "actor", "createdAt"],
} as const;

export type HostModel = keyof typeof HOST_FIELDS;

/**
 * A host model's row as the module reads it, whatever the host's own field types and model names: those of the
 * module's prisma/schema.prisma (tests/database/host-names.unit.test.ts holds them equal to its generated types).
 */
export interface HostRows {
  Customer: {
    id: string;
    kind: string;
    name: string;
    mobileNumber: string | null;
    state: string;
    city: string;
    address: string;
    sourceType: string | null;
    createdAt: Date;
  };
  User: { id: number; platformId: string | null; name: string; accessLevels: string[]; createdAt: Date };
  Referral: {
    id: number;
    referrerCustomerId: string;
    leadCustomerId: string | null;
    leadName: string;
    mobileNumber: string | null;
    status: string;
    state: string | null;
    city: string | null;
    address: string | null;
    relationship: string | null;
    projectType: string | null;
    remark: string | null;
    assignedAgentId: number | null;
    preferredAgentId: number | null;
    createdAt: Date | null;
  };
  AuditEntry: { id: number; referralId: number; action: string; actor: string; createdAt: Date };
}
export type HostField<M extends HostModel> = (typeof HOST_FIELDS)[M][number];

/** The fields a host may lack (the legacy layout, lib/db/layout.ts): their column is null. */
const OPTIONAL_COLUMNS: { [M in HostModel]: readonly HostField<M>[] } = {
  Customer: [],
  User: ["accessLevels"],
  Referral: ["assignedAgentId"],
  AuditEntry: [],
};

function modelNames<M extends HostModel>(model: M) {
  const fields = HOST_FIELDS[model] as readonly HostField<M>[] as [HostField<M>, ...HostField<M>[]];
  const field = z.enum(fields);
  const column = z.string().min(1).max(63);
  const optional = new Set<string>(OPTIONAL_COLUMNS[model]);
  return z.strictObject({
    /** The host's table. */
    table: column,
    /** The host's column of each field; null only where the host may lack it. */
    columns: z.strictObject(
      Object.fromEntries(fields.map((f) => [f, optional.has(f) ? column.nullable() : column])) as Record<
        HostField<M>,
        z.ZodString | z.ZodNullable<z.ZodString>
      >,
    ),
    /** Fields whose column is of an enum type, and that type's name: written cast to it, read as text. */
    enums: z.partialRecord(field, column),
    /** Timestamp fields whose column is without time zone: its values are UTC. */
    withoutTimeZone: z.array(field),
    /** Fields the module's schema requires that the host's column leaves optional: read with a fallback. */
    nullable: z.array(field),
  });
}

const hostNamesSchema = z.strictObject({
  Customer: modelNames("Customer"),
  User: modelNames("User"),
  Referral: modelNames("Referral"),
  /** null: the host keeps no audit entries, and the module writes none. */
  AuditEntry: modelNames("AuditEntry").nullable(),
});

export type HostNames = z.infer<typeof hostNamesSchema>;
export type ModelNames = NonNullable<HostNames[HostModel]>;

/** The resolved names, parsed once per process; a file that does not parse stops the start with one sentence. */
export const HOST_NAMES: HostNames = parseHostNames(resolved);

export function parseHostNames(value: unknown): HostNames {
  const parsed = hostNamesSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "the file"}: ${issue.message}`);
  throw new Error(`lib/db/host-names.json does not hold the host's names (${problems.join("; ")})`);
}
