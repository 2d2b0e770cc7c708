import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT, MAX_SENDS_PER_ROW } from "@/lib/importer/run";

/** What the docs say of the importer is what its code holds: the number of sends of a row, its exit codes. */
const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

describe("the importer's docs", () => {
  it(`give the sends of a rate-limited row as the code has them (${MAX_SENDS_PER_ROW}), and no other count`, () => {
    for (const file of ["docs/operating.md", "docs/integrators.md"]) {
      const text = read(file).replace(/\s+/g, " ");
      const counts = [...text.matchAll(/importer[^.]*? at most (\d+) times in all/g)].map((m) => Number(m[1]));
      expect(counts.length, file).toBeGreaterThan(0);
      expect(counts, file).toEqual(counts.map(() => MAX_SENDS_PER_ROW));
      expect(text, file).not.toMatch(/up to \d+ times per row/);
    }
  });

  it("list exactly the exit codes the importer has, in docs/operating.md and in --help", () => {
    const section = read("docs/operating.md").split("## Bulk importer")[1].split("\n## ")[0];
    const table = [...section.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    const codes = Object.values(EXIT).sort((a, b) => a - b);
    expect(table.sort((a, b) => a - b)).toEqual(codes);
    const help = read("scripts/import.ts").split("Exit codes:")[1].split("`")[0];
    expect([...help.matchAll(/\b(\d+) /g)].map((m) => Number(m[1])).sort((a, b) => a - b)).toEqual(codes);
  });
});
