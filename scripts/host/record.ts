// The host's record of what `host:install` put into it (.lead-intake-module.json), which a later install and
// `host:uninstall` read: both trust nothing in it that they have not checked.
import { z } from "zod";
import { refuse, type HostFolder } from "./host-folder";
import { STATE_FILE } from "./manifest";

/** The record of a host whose paths (from the app's folder) `inside` tells inside the host folder or not. */
const recordSchemaOf = (inside: (relative: string) => boolean) => {
  const insidePath = z.string().refine(inside, { message: "is not a path inside the host folder" });
  return z.object({
    version: z.string(),
    /** Each file the install wrote, with its SHA-256 as written. */
    files: z.record(insidePath, z.string().regex(/^[0-9a-f]{64}$/, { message: "is not a SHA-256" })),
    /** The packages the install added to package.json, with the version it wrote. */
    packages: z.record(z.string(), z.string()).default({}),
    /** The models and fields the install added to the Prisma schema, as `Model` or `Model.field`. */
    schema: z.array(z.string()).default([]),
    /** The package.json scripts the install set: what was there before (null: none) and what it wrote. */
    scripts: z.record(z.string(), z.object({ before: z.string().nullable(), after: z.string() })).default({}),
    /** The packages the install added to serverExternalPackages, and whether it created the property. */
    nextConfig: z
      .object({ file: insidePath, packages: z.array(z.string()), created: z.boolean() })
      .nullable()
      .default(null),
  });
};

export type InstallRecord = z.infer<ReturnType<typeof recordSchemaOf>>;

/** The host's record, checked; an empty one when the host has none. */
export function readRecord(host: HostFolder): InstallRecord {
  const recordSchema = recordSchemaOf((relative) => host.inside(relative) !== undefined);
  const text = host.readText(STATE_FILE);
  if (text === undefined) return recordSchema.parse({ version: "", files: {} });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    refuse(`${STATE_FILE} is not valid JSON; restore it from the host's version control`);
  }
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // A record key's own issue (a path) sits under the key: name the key as it is written.
    const inner = issue.code === "invalid_key" ? issue.issues[0] : issue;
    const where = issue.path.map((p, i) => (i === 0 ? String(p) : `[${JSON.stringify(p)}]`)).join("");
    refuse(`${STATE_FILE}: ${where ? `${where} ` : ""}${inner.message}; restore it from the host's version control`);
  }
  return parsed.data;
}

export function recordText(record: InstallRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}
