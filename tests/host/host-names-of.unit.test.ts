import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HOST_NAMES } from "@/lib/db/host-names";
import { hostNamesOf } from "@/scripts/host/host-names-of";
import { parseNamesConfig, type NamesConfig } from "@/scripts/host/names-config";
import { proposedConfig } from "@/scripts/host/names-proposal";
import { parseSchema } from "@/scripts/host/check/prisma-names";

const moduleSchema = parseSchema(readFileSync("prisma/schema.prisma", "utf8"));

/** Prisma's default naming, as create-t3-app writes a schema: no @map, no @@map, DateTime as timestamp(3). */
const DEFAULT_NAMING = `
model Customer {
  id           String   @id
  kind         String
  name         String
  mobileNumber String?
  state        String   @default("")
  city         String   @default("")
  address      String   @default("")
  sourceType   String?
  createdAt    DateTime @default(now())
}
model User {
  id           Int      @id @default(autoincrement())
  platformId   String?  @unique
  name         String?
  accessLevels String[]
  createdAt    DateTime @default(now())
}
model Referral {
  id                 Int      @id @default(autoincrement())
  referrerCustomerId String
  leadCustomerId     String?
  leadName           String
  mobileNumber       String?
  status             String
  state              String?
  city               String?
  address            String?
  relationship       String?
  projectType        String?
  remark             String?
  assignedAgentId    Int?
  preferredAgentId   Int?
  createdAt          DateTime? @default(now())
}
model AuditEntry {
  id         Int      @id @default(autoincrement())
  referralId Int
  action     String
  actor      String
  createdAt  DateTime @default(now())
}
`;

/** A CRM of its own names: Contact, Member, Deal with a stage enum, ActivityLog. */
const OWN_NAMES = `
enum DealStage {
  New
  Pending
  Assigned
  Won
  @@map("deal_stage")
}
model Contact {
  id          String   @id
  kind        String
  fullName    String   @map("full_name")
  phone       String?
  state       String   @default("")
  city        String   @default("")
  address     String   @default("")
  sourceType  String?
  createdAt   DateTime @default(now()) @db.Timestamp(3)
  @@map("contacts")
}
model Member {
  id          Int      @id @default(autoincrement())
  externalRef String?  @unique
  displayName String
  roles       String[]
  createdAt   DateTime @default(now())
}
model Deal {
  id              Int       @id @default(autoincrement())
  contactId       String
  leadContactId   String?
  leadName        String
  mobileNumber    String?
  stage           DealStage
  state           String?
  city            String?
  address         String?
  relationship    String?
  projectType     String?
  notes           String?
  ownerId         Int?
  preferredAgentId Int?
  createdAt       DateTime? @default(now())
}
model ActivityLog {
  id        Int    @id @default(autoincrement())
  dealId    Int
  action    String
}
`;

const OWN_CONFIG: NamesConfig = {
  models: {
    Customer: { model: "Contact", fields: { name: "fullName", mobileNumber: "phone" } },
    User: { model: "Member", fields: { platformId: "externalRef", name: "displayName", accessLevels: "roles" } },
    Referral: {
      model: "Deal",
      fields: {
        referrerCustomerId: "contactId",
        leadCustomerId: "leadContactId",
        status: "stage",
        remark: "notes",
        assignedAgentId: "ownerId",
      },
    },
    AuditEntry: null,
  },
};

describe("the host's names, resolved from its schema and lead-intake.config.json", () => {
  it("are the module's own names for the module's own schema, with no file", () => {
    const resolved = hostNamesOf(moduleSchema, moduleSchema, undefined);
    expect(resolved.problems).toEqual([]);
    expect(resolved.names).toEqual(HOST_NAMES);
  });

  it("take Prisma's default naming with no file: the model's name as table, the field's as column", () => {
    const { names, problems, missing, added } = hostNamesOf(moduleSchema, parseSchema(DEFAULT_NAMING), undefined);
    expect({ problems, missing, added }).toEqual({ problems: [], missing: [], added: [] });
    expect(names!.Customer).toMatchObject({ table: "Customer", withoutTimeZone: ["createdAt"], nullable: [] });
    expect(names!.Customer.columns.mobileNumber).toBe("mobileNumber");
    expect(names!.Referral.columns.referrerCustomerId).toBe("referrerCustomerId");
    expect(names!.User.nullable).toEqual(["name"]);
  });

  it("follow the config of a host with its own names: tables, columns, the enum, timestamps, null", () => {
    const { names, problems } = hostNamesOf(moduleSchema, parseSchema(OWN_NAMES), OWN_CONFIG);
    expect(problems).toEqual([]);
    expect(names!.Customer).toMatchObject({ table: "contacts", withoutTimeZone: ["createdAt"] });
    expect(names!.Customer.columns).toMatchObject({ name: "full_name", mobileNumber: "phone" });
    expect(names!.User).toMatchObject({ table: "Member", withoutTimeZone: ["createdAt"] });
    expect(names!.User.columns).toMatchObject({
      platformId: "externalRef",
      name: "displayName",
      accessLevels: "roles",
    });
    expect(names!.Referral.enums).toEqual({ status: "deal_stage" });
    expect(names!.Referral.columns).toMatchObject({ status: "stage", remark: "notes", assignedAgentId: "ownerId" });
    expect(names!.AuditEntry).toBeNull();
  });

  it("refuse, one sentence each, a model or field the host lacks and a type that cannot hold the values", () => {
    const host = OWN_NAMES.replace("phone       String?", "phone       Int?")
      .replace("roles       String[]", "roles       String")
      .replace("  Assigned\n", "")
      .replace("model Member {\n  id          Int", "model Member {\n  id          String");
    const config = structuredClone(OWN_CONFIG);
    config.models.Referral!.fields!.remark = "note";
    config.models.AuditEntry = { model: "AuditLog" };
    const { problems, names } = hostNamesOf(moduleSchema, parseSchema(host), config);
    expect(names).toBeUndefined();
    expect(problems).toEqual([
      "Customer.mobileNumber maps to Contact.phone, an Int; map it to a field of type String",
      "User.id maps to Member.id, a String; the contract's numericId is an integer; map it to a field of type Int",
      "User.accessLevels maps to Member.roles, a String; map it to a field of type String[]",
      "Referral.status maps to Deal.stage, an enum without Assigned; the module writes Pending and Assigned: add them to enum DealStage",
      "lead-intake.config.json: models.Referral.fields.remark names note, which the host's model Deal does not have as a column field; name one of its fields",
      "lead-intake.config.json: models.AuditEntry.model names AuditLog, which the host's schema does not have; name one of its models (Contact, Member, Deal, ActivityLog)",
    ]);
  });

  it("with no file, name the models the host lacks and propose a file of best guesses", () => {
    const host = parseSchema(OWN_NAMES);
    const { missing } = hostNamesOf(moduleSchema, host, undefined);
    expect(missing).toEqual(["Customer", "User", "Referral", "AuditEntry"]);
    const { config, sentence } = proposedConfig(moduleSchema, host, missing);
    expect(config.models.Customer).toEqual({ model: "Contact", fields: { name: "fullName", mobileNumber: "phone" } });
    expect(config.models.User).toEqual({
      model: "Member",
      fields: { platformId: "externalRef", name: "displayName", accessLevels: "roles" },
    });
    expect(config.models.Referral).toMatchObject({ model: "Deal", fields: { status: "stage", remark: "notes" } });
    expect(config.models.AuditEntry).toMatchObject({ model: "ActivityLog" });
    expect(sentence).toMatch(/^the host's schema has no model Customer, User, Referral, AuditEntry .*: review each/);
    // The proposal is a file the install reads as it reads the host's own.
    expect(parseNamesConfig(JSON.stringify(config)).problems).toEqual([]);
  });
});

describe("lead-intake.config.json, read", () => {
  it("takes the issue's example", () => {
    const text = `{ "models": { "Customer": { "model": "Contact", "fields": { "mobileNumber": "phone", "name": "fullName" } },
      "Referral": { "model": "Deal", "fields": { "status": "stage", "remark": "notes" } }, "AuditEntry": null } }`;
    expect(parseNamesConfig(text)).toEqual({ config: JSON.parse(text), problems: [] });
  });

  it("refuses, one sentence naming the key and the fix each, what is not the module's", () => {
    const text = JSON.stringify({
      model: {},
      models: {
        Contact: {},
        Customer: { model: "", fields: { phone: "phone", mobileNumber: null } },
        User: { model: "Member", fields: { accessLevels: null }, table: "members" },
        Referral: null,
      },
    });
    expect(parseNamesConfig(text).problems).toEqual([
      'lead-intake.config.json: model is not a key of the file; the only one is "models"',
      "lead-intake.config.json: models.Contact is not a model of the module's; the models are Customer, User, Referral, AuditEntry",
      "lead-intake.config.json: models.Customer.model must be the name of a model of the host's schema",
      "lead-intake.config.json: models.Customer.fields.phone is not a field of the module's Customer; they are id, kind, name, mobileNumber, state, city, address, sourceType, createdAt",
      "lead-intake.config.json: models.Customer.fields.mobileNumber is null; only User.accessLevels, Referral.assignedAgentId may be, so name the host's field",
      'lead-intake.config.json: models.User.table is not a key of a model; the keys are "model" and "fields"',
      'lead-intake.config.json: models.Referral is null; only AuditEntry may be, so name the host\'s model: { "model": "..." }',
    ]);
    expect(parseNamesConfig("{ models: }").problems[0]).toMatch(/^lead-intake.config.json is not valid JSON \(/);
  });
});
