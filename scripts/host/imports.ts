import ts from "typescript";

/** The alias the module's own files import each other by (its tsconfig maps `@/*` to its root). */
export const MODULE_ALIAS = "@";

/**
 * `source` with every import of the module's alias (`@/lib/...`, in static, dynamic, type and re-export imports)
 * written with the host's alias instead, as shadcn's CLI rewrites the files it copies. The positions come from
 * TypeScript's pre-parser, so strings and comments that only look like imports are left alone.
 */
export function withHostAlias(source: string, alias: string): string {
  if (alias === MODULE_ALIAS) return source;
  const prefix = `${MODULE_ALIAS}/`;
  const specifiers = ts
    .preProcessFile(source, true, true)
    .importedFiles.filter((ref) => ref.fileName.startsWith(prefix))
    .sort((a, b) => b.pos - a.pos);
  let rewritten = source;
  // A reference's pos is its opening quote (TypeScript's end is pos + the name's length, one short of the close).
  for (const { fileName, pos } of specifiers) {
    const start = pos + 1;
    rewritten = `${rewritten.slice(0, start)}${alias}/${fileName.slice(prefix.length)}${rewritten.slice(start + fileName.length)}`;
  }
  return rewritten;
}

/** Whether the install rewrites a file's imports: the module's TypeScript and JavaScript sources. */
export const hasImports = (file: string) => /\.(ts|tsx|mts|mjs|js)$/.test(file);
