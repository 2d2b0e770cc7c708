import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OPTIONAL_FIELD_NAMES, OPTIONAL_LEAD_FIELDS } from "@/lib/leads/fields";
import { examples } from "@/lib/openapi/examples";
import { FREE_TEXT_FIELDS, KNOWN_FIELDS, OPTIONAL_FIELDS } from "../helpers/oracle";

/**
 * The lists of a lead's fields kept outside lib/leads/fields.ts, each held to that table, so that a new optional
 * field fails here until every list names it (README, "Where a change goes"; tests/fields/add-a-field.command.test.ts
 * adds one and runs this file). The oracle stays written from the spec; these checks only tie its lists to the table.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
const sorted = (names: Iterable<string>) => [...names].sort();
const FREE_TEXT = OPTIONAL_FIELD_NAMES.filter((name) => OPTIONAL_LEAD_FIELDS[name].omitted === "");
/** Every field of a request body: the required ones, the agent, and the table's optional ones. */
const ALL_FIELDS = ["leadName", "leadMobileNumber", "referrer", "assignedAgentId", ...OPTIONAL_FIELD_NAMES];

describe("every list of a lead's fields names each field of lib/leads/fields.ts", () => {
  it("the oracle's known, optional and free-text fields", () => {
    expect(sorted(KNOWN_FIELDS)).toEqual(sorted(ALL_FIELDS));
    expect(sorted(OPTIONAL_FIELDS)).toEqual(sorted(["assignedAgentId", ...OPTIONAL_FIELD_NAMES]));
    expect(sorted(FREE_TEXT_FIELDS)).toEqual(sorted(FREE_TEXT));
  });

  it('the document\'s "All fields" example', () => {
    expect(examples.assignedLead.summary).toMatch(/^All fields/);
    expect(sorted(Object.keys(examples.assignedLead.value))).toEqual(sorted(ALL_FIELDS));
  });

  it("the importer's example: the header of examples/leads.csv", () => {
    const header = read("examples/leads.csv").split("\n")[0].split(",");
    expect(sorted(header)).toEqual(sorted([...ALL_FIELDS, "referrerCustomerId"]));
  });

  it("the docs: the importer's columns, the optional text fields, the referral columns a lead writes", () => {
    const columns = /header uses the API's field names \(`([^`]+)`/.exec(
      read("docs/operating.md").replace(/\n\s*/g, " "),
    );
    expect(sorted(columns![1].split(", "))).toEqual(sorted(ALL_FIELDS));
    const text = /Optional text fields \(([^)]+)\)/.exec(read("docs/decisions.md"));
    expect(sorted(text![1].split(", ").map((name) => name.replace(/`/g, "")))).toEqual(sorted(FREE_TEXT));
    const referrals = /- `referrals`:([\s\S]+?)\n {2}- `audit_entries`/.exec(read("docs/host-guide.md"))![1];
    const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const missing = OPTIONAL_FIELD_NAMES.map((name) => snake(OPTIONAL_LEAD_FIELDS[name].column)).filter(
      (column) => !referrals.includes(`\`${column}\``),
    );
    expect(missing).toEqual([]);
  });
});
