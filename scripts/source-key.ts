// The source-name key's tables and its SQL twin, generated from lib/leads/source-name.ts's rule.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { SOURCE_KEY_MAP } from "@/lib/leads/source-name";
import { commandLine } from "./host/check/command-line";

/**
 * Case folding of one BMP character, one character for one (İ gives i, not i + U+0307), so every letter of a case
 * pair maps to one representative (docs/decisions.md, "The source-name key").
 */
export function foldOf(c: string): string {
  const one = (s: string) => (s.length === 1 ? s : null);
  if (c === "\u0130") return "i";
  const lower = one(c.toLowerCase()) ?? c;
  const upper = one(lower.toUpperCase());
  return (upper && one(upper.toLowerCase())) ?? lower;
}

/** Every BMP character that folds to another one, in code point order. */
export function foldsFromUnicode(): { from: string; to: string } {
  let from = "";
  let to = "";
  for (let cp = 1; cp < 0x10000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCharCode(cp);
    const folded = foldOf(c);
    if (folded !== c) {
      from += c;
      to += folded;
    }
  }
  return { from, to };
}

/**
 * A PostgreSQL E'' literal holding `text`, ASCII only (\uXXXX escapes need a UTF8 database, which normalize() needs
 * too).
 */
function literal(text: string): string {
  let out = "";
  for (const c of text) {
    const cp = c.codePointAt(0) as number;
    if (c === "'" || c === "\\") out += `\\${c}`;
    else if (cp >= 0x20 && cp < 0x7f) out += c;
    else out += `\\u${cp.toString(16).padStart(4, "0")}`;
  }
  return `E'${out}'`;
}

/**
 * lib/leads/source-name.ts's sourceKey in SQL, with locale-independent functions only. An all-ASCII name skips
 * normalize and uses the map's ASCII part (docs/decisions.md, "Plans the statistics mislead").
 */
export function sourceKeyFunctionSql(): string {
  const entries = [...SOURCE_KEY_MAP];
  const ascii = entries.filter(([from]) => from < "\x80");
  const table = (list: [string, string][]) =>
    `${literal(list.map(([from]) => from).join(""))},\n      ${literal(list.map(([, to]) => to).join(""))}`;
  return `CREATE OR REPLACE FUNCTION "lead_intake_source_key"("name" TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT btrim(regexp_replace(
    CASE WHEN octet_length("name") = char_length("name")
    THEN translate("name",
      ${table(ascii)})
    ELSE translate(normalize("name", NFC),
      ${table(entries)})
    END, ' {2,}', ' ', 'g'), ' ')
$$;`;
}

const USAGE = `Usage: npx tsx scripts/source-key.ts <folds|sql>

  folds   rewrites lib/leads/source-key-folds.json from this Node's Unicode data
  sql     prints the SQL function for a new migration`;
// Run as a command, not when a test imports the SQL.
const command =
  process.argv[1] === import.meta.filename
    ? commandLine(USAGE, { min: 1, commands: ["folds", "sql"] }).positionals[0]
    : undefined;
if (command === "folds") {
  const file = path.join(import.meta.dirname, "../lib/leads/source-key-folds.json");
  // Non-ASCII as \u escapes: the file stays readable (combining marks and look-alikes are in the table).
  const json = JSON.stringify(foldsFromUnicode(), null, 2).replace(
    /[^\x20-\x7e\n]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  writeFileSync(file, `${json}\n`);
  console.log(`wrote ${file}`);
} else if (command === "sql") {
  console.log(sourceKeyFunctionSql());
}
