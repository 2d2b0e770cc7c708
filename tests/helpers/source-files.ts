import { readdirSync, statSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

const SKIPPED = new Set(["node_modules", ".next", "dist", "generated"]);

/** The files under each of `entries` (folders or files, relative to the project) whose name matches `pattern`. */
export function sourceFiles(entries: readonly string[], pattern: RegExp): string[] {
  return entries.flatMap((entry) => {
    if (SKIPPED.has(path.posix.basename(entry))) return [];
    if (!statSync(path.join(ROOT, entry)).isDirectory()) return pattern.test(entry) ? [entry] : [];
    const children = readdirSync(path.join(ROOT, entry)).map((name) => path.posix.join(entry, name));
    return sourceFiles(children, pattern);
  });
}
