import { mergeSchemas, type ModelMap } from "./schema";

/** The host's schema files, each with its text, in the order Prisma reads them (by name). */
export type SchemaFiles = { file: string; text: string }[];

/**
 * The module's models merged into a schema of several files (a `prisma/schema/` folder): merged as the one schema
 * Prisma makes of them, then each added line put back into the file of the host's line it follows. Fields go into
 * their model's file; the models the host lacks go into `newFile`, of their own (without one, after the last file).
 */
export function mergeSchemaFiles(
  files: SchemaFiles,
  moduleText: string,
  names: ModelMap,
  addedBefore: ReadonlySet<string>,
  newFile?: string,
): { changed: Map<string, string>; added: string[]; conflicts: string[] } {
  const texts = files.map(({ text }) => (text.endsWith("\n") ? text : `${text}\n`));
  const merge = mergeSchemas(texts.join(""), moduleText, names, addedBefore);
  if (merge.conflicts.length) return { changed: new Map(), added: merge.added, conflicts: merge.conflicts };
  // mergeSchemas only adds lines: walk its text beside the host's lines, each added line going with the line before.
  const owners = texts.flatMap((text, i) =>
    text
      .replace(/\n$/, "")
      .split("\n")
      .map((line) => ({ line, i })),
  );
  const out = files.map(() => [] as string[]);
  const appended: string[] = [];
  const lines = merge.schema.replace(/\n$/, "").split("\n");
  let next = 0;
  let owner = 0;
  for (const line of lines) {
    if (next < owners.length && owners[next].line === line) {
      owner = owners[next].i;
      out[owner].push(line);
      next++;
    } else if (next < owners.length || !newFile) out[owner].push(line);
    else appended.push(line);
  }
  const changed = new Map<string, string>();
  for (const [i, { file }] of files.entries()) {
    const text = `${out[i].join("\n")}\n`;
    if (text !== texts[i]) changed.set(file, text);
  }
  while (appended[0] === "") appended.shift();
  if (newFile && appended.length) changed.set(newFile, `${appended.join("\n")}\n`);
  return { changed, added: merge.added, conflicts: [] };
}
