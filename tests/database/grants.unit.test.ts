import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FEATURES, grantStatements, RUNTIME_GRANTS } from "@/lib/db/grants";

/** The host guide shows the one table of grants (lib/db/grants.ts): its GRANT block and a row per feature. */
describe("the host guide's grants", () => {
  const guide = readFileSync("docs/host-guide.md", "utf8");
  const section = guide.slice(guide.indexOf("## Grants"), guide.indexOf("## Environment variables"));

  it("shows exactly the GRANT statements of every feature", () => {
    expect(section).toContain(`\`\`\`sql\n${grantStatements(FEATURES, "lead_intake_app")}\n\`\`\``);
  });

  it("names every table and sequence of a feature in that feature's row", () => {
    const rows = section.split("\n").filter((line) => line.startsWith("| "));
    for (const feature of FEATURES) {
      const row = rows.find((line) => line.toLowerCase().startsWith(`| ${feature}`));
      expect(row, feature).toBeDefined();
      const { tables, sequences }: { tables: Record<string, readonly string[]>; sequences: readonly string[] } =
        RUNTIME_GRANTS[feature];
      for (const object of [...Object.keys(tables), ...sequences]) expect(row, feature).toContain(`\`${object}\``);
    }
  });
});
