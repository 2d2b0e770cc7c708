import { validate } from "@prisma/prisma-schema-wasm";

/** A schema's files, each with its path (as shown in Prisma's messages) and text: one schema, as Prisma reads them. */
export type SchemaTexts = [file: string, text: string][];

/**
 * What Prisma's own validator finds wrong with a schema, one clause each (Prisma's message and where), or none.
 * The datasource's connection URLs are blanked first, for validation only: Prisma 6 requires them and Prisma 7's
 * validator refuses them, and nothing else of the schema depends on them, so both majors' schemas are checked alike.
 */
export function schemaProblems(files: SchemaTexts): string[] {
  try {
    validate(JSON.stringify({ prismaSchema: files.map(([file, text]) => [file, withoutUrls(text)]), noColor: true }));
    return [];
  } catch (error) {
    const raw = String((error as Error).message ?? error);
    let message = raw;
    try {
      message = String((JSON.parse(raw) as { message?: unknown }).message ?? raw);
    } catch {
      // not Prisma's JSON: its own text
    }
    const lines = message.replace(/\u001b\[[0-9;]*m/g, "").split("\n");
    const problems: string[] = [];
    for (const [i, line] of lines.entries()) {
      if (!line.startsWith("error: ")) continue;
      const where = /^\s*-->\s*(\S+)/.exec(lines[i + 1] ?? "")?.[1];
      problems.push(`${line.slice(7).replace(/\.$/, "")}${where ? ` (${where})` : ""}`);
    }
    return problems.length ? problems : [lines[0] ?? raw];
  }
}

/** A schema file's text with the datasource's URL lines blank (so the lines keep their numbers). */
function withoutUrls(text: string): string {
  let inDatasource = false;
  return text
    .split("\n")
    .map((line) => {
      if (/^\s*datasource\s+\w+\s*\{/.test(line)) inDatasource = true;
      else if (inDatasource && /^\s*\}/.test(line)) inDatasource = false;
      else if (inDatasource && /^\s*(url|directUrl|shadowDatabaseUrl)\s*=/.test(line)) return "";
      return line;
    })
    .join("\n");
}
