// The committed checksum of every migration that has landed, and what earlier commits applied.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { CHECKSUMS_FILE, readMigrations, type MigrationChecksums } from "@/lib/db/migrate";
import { commandLine } from "./host/check/command-line";

export const HISTORY_FILE = "tests/fixtures/migration-history.json";

/** The migrations of one earlier commit, in name order, and the text of each that differs from today's. */
export interface MigrationHistory {
  commits: { commit: string; migrations: { name: string; checksum: string }[] }[];
  texts: Record<string, string>;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8", maxBuffer: 64 << 20 });

function historyFromGit(branch: string, today: Map<string, string>): MigrationHistory {
  const history: MigrationHistory = { commits: [], texts: {} };
  for (const commit of git("log", "--format=%H", "--reverse", branch, "--", "prisma/migrations")
    .split("\n")
    .filter(Boolean)) {
    const paths = git("ls-tree", "-r", "--name-only", commit, "--", "prisma/migrations")
      .split("\n")
      .filter((p) => p.endsWith("/migration.sql"))
      .sort();
    const migrations = paths.map((p) => {
      const sql = git("show", `${commit}:${p}`);
      const name = p.split("/").at(-2)!;
      const checksum = sha256(sql);
      if (today.get(name) !== checksum) history.texts[checksum] = sql;
      return { name, checksum };
    });
    history.commits.push({ commit, migrations });
  }
  return history;
}

const USAGE = `Usage: npx tsx scripts/migration-checksums.ts [history [<branch>]]

  (no argument)     adds the checksum of each new migration, never changes one
  history <branch>  also rewrites the earlier texts from that branch's history (default main)`;
const [command, branch = "main"] = commandLine(USAGE, { max: 2, commands: ["history"] }).positionals;

const current = await readMigrations();
const file: MigrationChecksums = JSON.parse(readFileSync(CHECKSUMS_FILE, "utf8"));
for (const { name, checksum } of current) {
  const landed = file.landed[name];
  if (landed === undefined) file.landed[name] = checksum;
  else if (landed !== checksum)
    throw new Error(`Migration ${name} differs from its landed text: add a new migration instead`);
}
if (command === "history") {
  const history = historyFromGit(branch, new Map(current.map((m) => [m.name, m.checksum])));
  file.earlier = {};
  // Not the first commit's texts: its lead_intake kept no counts, which every later migration builds on, so a database
  // it migrated is refused with the runner's sentence rather than half upgraded.
  for (const { migrations } of history.commits.slice(1)) {
    for (const { name, checksum } of migrations) if (checksum !== file.landed[name]) file.earlier[checksum] = name;
  }
  writeFileSync(HISTORY_FILE, `${JSON.stringify(history, null, 2)}\n`);
}
writeFileSync(CHECKSUMS_FILE, `${JSON.stringify(file, null, 2)}\n`);
