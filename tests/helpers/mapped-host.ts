// Types only: a test's mock of lib/db/host-names.json imports this file, so it must not import that file's readers.
import type { HostNames } from "@/lib/db/host-names";

/**
 * A host with its own names, as Prisma's default naming makes them: models Contact, Member, Deal and ActivityLog, no
 * @map, a status enum DealStage and timestamp(3) columns without time zone.
 */
export const MAPPED_HOST: HostNames = {
  Customer: {
    table: "Contact",
    columns: {
      id: "id",
      kind: "kind",
      name: "fullName",
      mobileNumber: "phone",
      state: "state",
      city: "city",
      address: "address",
      sourceType: "sourceType",
      createdAt: "createdAt",
    },
    enums: {},
    withoutTimeZone: ["createdAt"],
    nullable: [],
  },
  User: {
    table: "Member",
    columns: {
      id: "id",
      platformId: "externalRef",
      name: "displayName",
      accessLevels: "roles",
      createdAt: "createdAt",
    },
    enums: {},
    withoutTimeZone: ["createdAt"],
    nullable: ["name"],
  },
  Referral: {
    table: "Deal",
    columns: {
      id: "id",
      referrerCustomerId: "referrerCustomerId",
      leadCustomerId: "leadCustomerId",
      leadName: "leadName",
      mobileNumber: "mobileNumber",
      status: "stage",
      state: "state",
      city: "city",
      address: "address",
      relationship: "relationship",
      projectType: "projectType",
      remark: "notes",
      assignedAgentId: "assignedAgentId",
      preferredAgentId: "preferredAgentId",
      createdAt: "createdAt",
    },
    enums: { status: "DealStage" },
    withoutTimeZone: ["createdAt"],
    nullable: [],
  },
  AuditEntry: {
    table: "ActivityLog",
    columns: { id: "id", referralId: "dealId", action: "action", actor: "actor", createdAt: "createdAt" },
    enums: {},
    withoutTimeZone: ["createdAt"],
    nullable: [],
  },
};

/** The mapped host's tables, made by hand as the host's own migration would (the module never creates them there). */
export const MAPPED_HOST_TABLES = `
CREATE TYPE "DealStage" AS ENUM ('New', 'Pending', 'Assigned', 'Won', 'Lost');
CREATE TABLE "Contact" (
  "id" TEXT PRIMARY KEY, "kind" TEXT NOT NULL, "fullName" TEXT NOT NULL, "phone" TEXT,
  "state" TEXT NOT NULL DEFAULT '', "city" TEXT NOT NULL DEFAULT '', "address" TEXT NOT NULL DEFAULT '',
  "sourceType" TEXT, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE "Member" (
  "id" SERIAL PRIMARY KEY, "externalRef" TEXT UNIQUE, "displayName" TEXT, "roles" TEXT[] DEFAULT ARRAY[]::TEXT[],
  "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE "Deal" (
  "id" SERIAL PRIMARY KEY, "referrerCustomerId" TEXT NOT NULL REFERENCES "Contact"("id"),
  "leadCustomerId" TEXT REFERENCES "Contact"("id"), "leadName" TEXT NOT NULL, "mobileNumber" TEXT,
  "stage" "DealStage" NOT NULL DEFAULT 'New', "state" TEXT, "city" TEXT, "address" TEXT, "relationship" TEXT,
  "projectType" TEXT, "notes" TEXT, "assignedAgentId" INTEGER REFERENCES "Member"("id"),
  "preferredAgentId" INTEGER REFERENCES "Member"("id"), "createdAt" TIMESTAMP(3) DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE "ActivityLog" (
  "id" SERIAL PRIMARY KEY, "dealId" INTEGER NOT NULL REFERENCES "Deal"("id"), "action" TEXT NOT NULL,
  "actor" TEXT NOT NULL, "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);`;

/** The same host on the legacy layout, without an assignment column, and keeping no audit entries. */
export const LEGACY_MAPPED_HOST: HostNames = {
  ...MAPPED_HOST,
  Referral: { ...MAPPED_HOST.Referral, columns: { ...MAPPED_HOST.Referral.columns, assignedAgentId: null } },
  AuditEntry: null,
};

/** The mapped host after a migration of its own renamed a table and two columns the module's statements use. */
export const RENAMED_MAPPED_HOST: HostNames = {
  ...MAPPED_HOST,
  Customer: { ...MAPPED_HOST.Customer, columns: { ...MAPPED_HOST.Customer.columns, name: "contactName" } },
  User: { ...MAPPED_HOST.User, columns: { ...MAPPED_HOST.User.columns, platformId: "platformRef" } },
  Referral: { ...MAPPED_HOST.Referral, table: "Opportunity" },
};
/** That migration of the host's. */
export const MAPPED_HOST_RENAMES = `
ALTER TABLE "Deal" RENAME TO "Opportunity";
ALTER TABLE "Contact" RENAME COLUMN "fullName" TO "contactName";
ALTER TABLE "Member" RENAME COLUMN "externalRef" TO "platformRef";`;
