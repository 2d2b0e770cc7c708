// The host's record of what `host:install` put into it (.lead-intake-module.json), which a later install and
// `host:uninstall` read: both trust nothing in it that they have not checked against what an install adds.
import type { Model } from "@mrleebo/prisma-ast";
import { z } from "zod";
import { refuse, type HostFolder } from "./host-folder";
import { STATE_FILE } from "./manifest";
import {
  moduleDependencies,
  moduleHostFiles,
  moduleModels,
  NEXT_15_EXTERNAL_PACKAGES,
  NEXT_CONFIGS,
  NEXT_ENV,
  PRISMA_COMPANIONS,
  retiredHostFiles,
  SERVER_EXTERNAL_PACKAGES,
  writtenScripts,
} from "./module-adds";
import { isNamesMigration } from "./names-migration";
import { fields, models, parseSchema } from "./check/prisma-names";
import { hostPathOf, type HostProject } from "./project-info";

/** The record of a host whose paths (from the app's folder) `inside` tells inside the host folder or not. */
const recordSchemaOf = (inside: (relative: string) => boolean) => {
  const insidePath = z.string().refine(inside, { message: "is not a path inside the host folder" });
  return z.object({
    version: z.string(),
    /** Each file the install wrote, with its SHA-256 as written. */
    files: z.record(insidePath, z.string().regex(/^[0-9a-f]{64}$/, { message: "is not a SHA-256" })),
    /** The packages the install added to package.json, with the version it wrote. */
    packages: z.record(z.string(), z.string()).default({}),
    /**
     * The models, fields and indexes the install added to the Prisma schema, as `Model`, `Model.field` or
     * `Model@@index([...])`, by the module's names.
     */
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

const EXACT_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** What a record is checked against: where the host's files go, and its Prisma schema's files. */
export type RecordedHost = Pick<HostProject, "sourceRoot" | "migrations" | "schemaFiles">;

/**
 * The host's record, checked: its paths inside the host folder, and each entry one the module's install adds (its
 * files, models and fields, packages at the version it writes, scripts with the value it writes). An empty record
 * when the host has none.
 */
export function readRecord(host: HostFolder, layout: RecordedHost): InstallRecord {
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
  const foreign = foreignEntry(host, layout, parsed.data);
  if (foreign) refuse(`${STATE_FILE}: ${foreign}; restore it from the host's version control`);
  return parsed.data;
}

/** The first entry of the record that no install of this module writes, said as a clause; undefined when none. */
function foreignEntry(host: HostFolder, layout: RecordedHost, record: InstallRecord): string | undefined {
  const files = moduleHostFiles(layout);
  const retired = retiredHostFiles(layout);
  const hostPath = (modulePath: string) => hostPathOf(layout, modulePath);
  const isModuleFile = (f: string) => files.has(f) || retired.has(f) || isNamesMigration(f, hostPath);
  const file = Object.keys(record.files).find((f) => !isModuleFile(f));
  if (file !== undefined) return `files[${JSON.stringify(file)}] is not a file the module's install writes`;

  const dependencies = moduleDependencies();
  for (const [name, version] of Object.entries(record.packages)) {
    if (name !== NEXT_ENV && !dependencies.has(name))
      return `packages names ${name}, which is not a package the module's install adds`;
    // Prisma's companions and @next/env are written at the host's own range; every other at the exact version of a
    // module's lock (an older clone's too), never a range as a host's own package has.
    if (name !== NEXT_ENV && !PRISMA_COMPANIONS.has(name) && !EXACT_VERSION.test(version))
      return `packages[${JSON.stringify(name)}] is ${version}, not an exact version as the module's install writes`;
  }

  for (const [name, { before, after }] of Object.entries(record.scripts)) {
    const written = writtenScripts(name, before, layout.sourceRoot);
    if (!written.length && name !== "start")
      return `scripts names ${name}, which is not a script the module's install sets`;
    if (!written.includes(after))
      return `scripts[${JSON.stringify(name)}] is not the value the module's install writes`;
  }

  const { nextConfig } = record;
  if (nextConfig && !NEXT_CONFIGS.includes(nextConfig.file))
    return `nextConfig.file is ${nextConfig.file}, not a next.config the module's install edits`;
  const external = new Set([...SERVER_EXTERNAL_PACKAGES, ...NEXT_15_EXTERNAL_PACKAGES]);
  const hostsExternal = nextConfig?.packages.find((name) => !external.has(name));
  if (hostsExternal !== undefined)
    return `nextConfig.packages names ${hostsExternal}, which the module's install does not add to serverExternalPackages`;

  const ours = moduleModels();
  const theirs = new Map(hostModels(host, layout.schemaFiles).map((model) => [model.name, model]));
  for (const entry of record.schema) {
    const index = /^(\w+)(@@index\(.*\))$/.exec(entry);
    if (index) {
      if (!ours.get(index[1]!)?.indexes.has(index[2]!))
        return `schema names ${entry}, which is not an index the module's install adds`;
      continue;
    }
    const [modelName, fieldName, ...rest] = entry.split(".");
    const model = ours.get(modelName);
    if (!model || rest.length || (fieldName !== undefined && !model.addable.has(fieldName)))
      return `schema names ${entry}, which is not a ${fieldName === undefined ? "model" : "field"} the module's install adds`;
    const hosts = fieldName === undefined ? theirs.get(modelName) : undefined;
    const own = hosts ? fields(hosts).filter((f) => !model.fields.has(f.name)) : [];
    if (own.length)
      return (
        `schema names ${entry}, a model an install adds whole, but the host's ${entry} has fields the module's has ` +
        `not (${own.map((f) => f.name).join(", ")})`
      );
  }
  return undefined;
}

/** The models of the host's schema; none where it does not parse, which the command then refuses on its own. */
function hostModels(host: HostFolder, files: string[]): Model[] {
  return files.flatMap((file) => {
    const text = host.readText(file) ?? "";
    try {
      return models(parseSchema(text));
    } catch {
      return [];
    }
  });
}

export function recordText(record: InstallRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}
