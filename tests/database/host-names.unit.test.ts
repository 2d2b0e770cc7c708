import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  HOST_FIELDS,
  HOST_NAMES,
  parseHostNames,
  type HostField,
  type HostModel,
  type HostRows,
} from "@/lib/db/host-names";
import type { AuditEntry, Customer, Referral, User } from "@/lib/generated/prisma/client";
import { columnFields, columnOf, models, parseSchema, tableOf } from "@/scripts/host/check/prisma-names";

/** On its own, the module's resolved names are those of its own schema: its @@map and @map, nothing else. */
describe("the module's own resolved names", () => {
  const schema = parseSchema(readFileSync("prisma/schema.prisma", "utf8"));
  const own = (name: HostModel) => models(schema).find((model) => model.name === name)!;

  it("are prisma/schema.prisma's tables and columns, for every column field of each host model", () => {
    for (const name of Object.keys(HOST_FIELDS) as HostModel[]) {
      const fields = columnFields(schema, own(name));
      expect(HOST_FIELDS[name], name).toEqual(fields.map((field) => field.name));
      expect(HOST_NAMES[name], name).toEqual({
        table: tableOf(own(name)),
        columns: Object.fromEntries(fields.map((field) => [field.name, columnOf(field)])),
        enums: {},
        withoutTimeZone: [],
        nullable: [],
      });
    }
  });
});

describe("the rows the module reads", () => {
  it("have the module's generated types, so no host code needs the host's (typecheck holds this)", () => {
    expectTypeOf<HostRows["Customer"]>().toEqualTypeOf<Customer>();
    expectTypeOf<HostRows["User"]>().toEqualTypeOf<User>();
    expectTypeOf<HostRows["Referral"]>().toEqualTypeOf<Referral>();
    expectTypeOf<HostRows["AuditEntry"]>().toEqualTypeOf<AuditEntry>();
    expectTypeOf<HostField<"Customer">>().toEqualTypeOf<keyof Customer>();
    expectTypeOf<HostField<"User">>().toEqualTypeOf<keyof User>();
    expectTypeOf<HostField<"Referral">>().toEqualTypeOf<keyof Referral>();
    expectTypeOf<HostField<"AuditEntry">>().toEqualTypeOf<keyof AuditEntry>();
  });
});

describe("a resolved names file", () => {
  it("is as the guide's example shows it", () => {
    const guide = readFileSync("docs/host-guide.md", "utf8");
    const section = guide.slice(guide.indexOf("## Your names"), guide.indexOf("## What the module writes"));
    const example = /```json\n(\{\n  "Customer"[^`]*)```/.exec(section)![1]!;
    expect(parseHostNames(JSON.parse(example))).toMatchObject({ Referral: { enums: { status: "DealStage" } } });
  });

  const copy = () => structuredClone(HOST_NAMES) as Record<string, unknown> & typeof HOST_NAMES;

  it("may leave out the columns the legacy layout lacks, and the audit table", () => {
    const names = copy();
    names.User.columns.accessLevels = null;
    names.Referral.columns.assignedAgentId = null;
    names.AuditEntry = null;
    expect(parseHostNames(names)).toEqual(names);
  });

  it("names every other column", () => {
    const names = copy();
    names.Referral.columns.leadName = null;
    expect(() => parseHostNames(names)).toThrow(/leadName/);
  });

  it("holds no key but the module's models and fields", () => {
    expect(() => parseHostNames({ ...copy(), Contact: copy().Customer })).toThrow(/Contact/);
    const names = copy();
    (names.Customer.columns as Record<string, string>).phone = "phone";
    expect(() => parseHostNames(names)).toThrow(/phone/);
    expect(() => parseHostNames({ ...copy(), Referral: { ...copy().Referral, enums: { stage: "Stage" } } })).toThrow();
  });
});
