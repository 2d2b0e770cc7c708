import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NUMERIC_SETTINGS, RATE_LIMIT_VARIABLES } from "@/lib/settings.mjs";
import { environmentTable, PAGES, VARIABLES, withTable } from "@/scripts/environment";

/** The table of environment variables (scripts/environment.ts) lists each variable the code reads; docs show it. */
const ROOT = path.resolve(import.meta.dirname, "../..");
const SOURCES = ["lib", "app", "scripts", "bench", "instrumentation.ts"];
const SKIPPED = new Set(["lib/generated", "node_modules", ".next"]);

function sourceFiles(entry: string): string[] {
  if (SKIPPED.has(entry) || entry.endsWith("/node_modules") || entry.endsWith("/.next")) return [];
  const full = path.join(ROOT, entry);
  if (statSync(full).isDirectory())
    return readdirSync(full).flatMap((name) => sourceFiles(path.posix.join(entry, name)));
  return /\.(ts|tsx|mts|mjs|js)$/.test(entry) ? [entry] : [];
}

/** Names read as `process.env.X`, `env.X`, `env["X"]`, `const { X } = process.env` or `numericSetting("X")`. */
function namesRead(text: string): string[] {
  const names = [
    ...text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g),
    ...text.matchAll(/\benv\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]/g),
    ...text.matchAll(/\bnumericSetting\(\s*["'`]([A-Z][A-Z0-9_]*)["'`]/g),
  ].map((match) => match[1]);
  for (const [, fields] of text.matchAll(/\{([^{}]*)\}\s*=\s*process\.env\b/g))
    names.push(...fields.split(",").map((field) => field.split(":")[0].trim()));
  return names.filter(Boolean);
}

const read = new Map<string, string>(); // name -> first file that reads it
for (const file of SOURCES.flatMap(sourceFiles))
  for (const name of namesRead(readFileSync(path.join(ROOT, file), "utf8"))) if (!read.has(name)) read.set(name, file);

describe("the table of environment variables", () => {
  it("finds the reads it looks for (a scan that finds nothing would pass)", () => {
    expect(read.get("LEADS_API_KEY")).toBeDefined();
    expect(read.get("LEADS_METRICS_PORT")).toBe("lib/instrumentation/node.ts");
    expect(namesRead('const { A: a, B } = process.env; env["C"]; process.env.D; numericSetting("E")').sort()).toEqual([
      "A",
      "B",
      "C",
      "D",
      "E",
    ]);
  });

  it("holds every variable the code reads", () => {
    const listed = new Set(VARIABLES.map((v) => v.name));
    const missing = [...read].filter(([name]) => !listed.has(name)).map(([name, file]) => `${name} (${file})`);
    expect(missing, "add them to VARIABLES in scripts/environment.ts").toEqual([]);
  });

  it("holds every numeric setting and rate limit of lib/settings.mjs, and nothing no code reads", () => {
    const listed = VARIABLES.map((v) => v.name);
    expect(listed).toEqual(
      expect.arrayContaining([...Object.keys(NUMERIC_SETTINGS), ...Object.values(RATE_LIMIT_VARIABLES)]),
    );
    const fromSettings = new Set<string>([...Object.keys(NUMERIC_SETTINGS), ...Object.values(RATE_LIMIT_VARIABLES)]);
    const unread = VARIABLES.filter((v) => !v.readBy && !read.has(v.name) && !fromSettings.has(v.name));
    expect(unread.map((v) => v.name)).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("takes the numeric settings' defaults and ranges from lib/settings.mjs", () => {
    const pool = VARIABLES.find((v) => v.name === "DATABASE_POOL_SIZE")!;
    const { fallback, min, max } = NUMERIC_SETTINGS.DATABASE_POOL_SIZE;
    expect(pool).toMatchObject({ default: `\`${fallback}\``, range: `${min} to ${max}` });
  });

  it.each(Object.entries(PAGES))("is what %s shows (else run: npx tsx scripts/environment.ts)", (page, folder) => {
    const text = readFileSync(path.join(ROOT, page), "utf8");
    expect(text).toContain(environmentTable(folder));
    expect(withTable(text, folder)).toBe(text);
  });
});
