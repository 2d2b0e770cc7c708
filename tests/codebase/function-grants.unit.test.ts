import path from "node:path";
import { describe, expect, it } from "vitest";
import { madeObjects, readMigrationTexts } from "@/lib/db/migration-objects.mjs";
import { ROOT } from "@/tests/helpers/source-files";

/**
 * A migration grants or revokes on the module's own functions only, each named by its full signature: a pattern of
 * names, or a statement built in a loop, reaches the host's functions of the same prefix too (docs/host-guide.md,
 * "What the migrations do"). Landed migrations are never edited, so the rule holds from the one that did that on.
 */
const FROM = "20261126000100_no_public_execute";

const migrations = readMigrationTexts(path.join(ROOT, "prisma/migrations"));
const own = new Set(
  madeObjects(migrations)
    .objects.filter((o) => o.kind === "function")
    .map((o) => o.name),
);

/** Each grant or revoke of a migration's SQL that does not name one of the module's functions by its signature. */
function wideGrants(sql: string): string[] {
  const code = sql.replace(/--[^\n]*/g, "");
  const wide = [...code.matchAll(/\bEXECUTE\s+format\s*\(\s*'\s*(GRANT|REVOKE)[^']*/gi)].map((m) => m[0]);
  wide.push(...[...code.matchAll(/\b(?:GRANT|REVOKE)\b[^;]*\bON\s+ALL\s+FUNCTIONS\b[^;]*/gi)].map((m) => m[0]));
  for (const [statement, targets] of code.matchAll(
    /\b(?:GRANT|REVOKE)\b[^;]*?\bON\s+FUNCTION\s+([^;]*?)\s+(?:TO|FROM)\b/gi,
  ))
    for (const target of targets.split(/,(?![^(]*\))/)) {
      const [, name, args] = /^\s*"?(\w+)"?\s*\(([^)]*)\)\s*$/.exec(target) ?? [];
      const types = (args ?? "")
        .split(",")
        .map((a) => a.trim().replaceAll('"', "").split(/\s+/).at(-1)!.toLowerCase())
        .filter(Boolean);
      if (!name || !own.has(`${name}(${types.join(", ")})`)) wide.push(statement);
    }
  return wide;
}

describe("grants and revokes on functions in the migrations", () => {
  it("name one of the module's functions by its full signature, from the no_public_execute migration on", () => {
    const later = migrations.filter((m) => m.name > FROM);
    expect(later.map((m) => [m.name, wideGrants(m.sql)])).toEqual(later.map((m) => [m.name, []]));
  });

  it("the rule finds the loop that migration ran, a pattern, a host's function and a name without arguments", () => {
    expect(wideGrants(migrations.find((m) => m.name === FROM)!.sql)).not.toEqual([]);
    expect(wideGrants("REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;")).not.toEqual([]);
    expect(wideGrants("REVOKE EXECUTE ON FUNCTION lead_intake_score(int) FROM PUBLIC;")).not.toEqual([]);
    expect(wideGrants('REVOKE EXECUTE ON FUNCTION "lead_intake_count_referrals" FROM PUBLIC;')).not.toEqual([]);
    expect(wideGrants('REVOKE EXECUTE ON FUNCTION "lead_intake_source_key"("name" TEXT) FROM PUBLIC;')).toEqual([]);
  });
});
