import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hostNamesOf } from "@/scripts/host/host-names-of";
import { parseNamesConfig, type NamesConfig } from "@/scripts/host/names-config";
import { parseSchema } from "@/scripts/host/check/prisma-names";

const guide = readFileSync("docs/host-guide.md", "utf8");
const section = guide.slice(guide.indexOf("## Your names"), guide.indexOf("### The resolved names"));
const block = (language: string) => new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(section)?.[1] ?? "";
const moduleSchema = parseSchema(readFileSync("prisma/schema.prisma", "utf8"));

describe('docs/host-guide.md, "Your names"', () => {
  it("has its example host schema and config file", () => {
    expect(block("prisma")).toContain("model Contact {");
    expect(block("json")).toContain('"models"');
  });

  it("its config file is read by the install's reader and fits its schema: the names it resolves", () => {
    const parsed = parseNamesConfig(block("json"));
    expect(parsed.problems).toEqual([]);
    const config = (parsed as { config: NamesConfig }).config;
    const { names, problems, missing } = hostNamesOf(moduleSchema, parseSchema(block("prisma")), config);
    expect({ problems, missing }).toEqual({ problems: [], missing: [] });
    expect(names!.Customer).toMatchObject({ table: "contacts", withoutTimeZone: ["createdAt"] });
    expect(names!.Customer.columns).toMatchObject({
      name: "full_name",
      mobileNumber: "phone",
      sourceType: "source_type",
    });
    expect(names!.User).toMatchObject({ table: "User", nullable: ["name"] });
    expect(names!.Referral).toMatchObject({ table: "Deal", enums: { status: "DealStage" } });
    expect(names!.Referral.columns).toMatchObject({ status: "stage", remark: "notes" });
    expect(names!.AuditEntry).toBeNull();
  });

  it("without its config, the host of the example gets a proposal that names its models", () => {
    const { missing } = hostNamesOf(moduleSchema, parseSchema(block("prisma")), undefined);
    expect(missing).toEqual(["Customer", "Referral", "AuditEntry"]);
  });
});
