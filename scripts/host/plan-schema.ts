import { readFileSync } from "node:fs";
import path from "node:path";
import type { HostNames } from "@/lib/db/host-names";
import { refuse, type HostFolder } from "./host-folder";
import { hostNamesOf } from "./host-names-of";
import { CONFIG_FILE, parseNamesConfig, type NamesConfig } from "./names-config";
import { proposedConfig } from "./names-proposal";
import { models, parseSchema } from "./check/prisma-names";
import type { HostProject } from "./project-info";
import type { ModelMap } from "./schema";
import { mergeSchemaFiles } from "./schema-files";

export const HOST_SCHEMA = "prisma/schema.prisma";
/** The file of a host's schema folder that the module's own models go into. */
const SCHEMA_FOLDER_FILE = "lead_intake.prisma";

export interface SchemaPlan {
  /** The schema files written, with their new text. */
  changed: Map<string, string>;
  /** Each model and field added, as `Model` or `Model.field`. */
  added: string[];
  created?: true;
  where: string;
  /** The host's tables and columns for the module's host models: lib/db/host-names.json in the host. */
  names: HostNames;
}

/** Where the host's names cannot be found: the config file of best guesses to write, and what to say. */
export interface Proposal {
  file: string;
  text: string;
  sentence: string;
}

/**
 * The host's names (its schema and lead-intake.config.json) and the module's models merged into its schema; a host
 * without one gets the module's. A config that does not fit is refused; a missing model without one gets a proposal.
 */
export function planSchema(
  host: HostFolder,
  project: HostProject,
  moduleRoot: string,
  addedBefore: ReadonlySet<string>,
): SchemaPlan | Proposal {
  const moduleText = readFileSync(path.join(moduleRoot, HOST_SCHEMA), "utf8");
  const moduleSchema = parseSchema(moduleText);
  const configText = host.readText(CONFIG_FILE);
  const parsed = configText === undefined ? undefined : parseNamesConfig(configText);
  if (parsed?.problems.length) refuse(parsed.problems.join("; "));
  const config = parsed && "config" in parsed ? (parsed.config as NamesConfig) : undefined;
  if (project.schemaFiles.length === 0) {
    const { names } = hostNamesOf(moduleSchema, moduleSchema, undefined);
    const added = models(moduleSchema).map((m) => m.name);
    return { changed: new Map([[HOST_SCHEMA, moduleText]]), added, created: true, where: HOST_SCHEMA, names: names! };
  }
  const where = project.schemaFolder ?? project.schemaFiles[0];
  const files = project.schemaFiles.map((file) => ({ file, text: host.readText(file) ?? "" }));
  let hostSchema;
  try {
    hostSchema = parseSchema(files.map(({ text }) => (text.endsWith("\n") ? text : `${text}\n`)).join(""));
  } catch (error) {
    refuse(`${where} cannot be read as a Prisma schema (${(error as Error).message.split("\n")[0]})`);
  }
  const resolution = hostNamesOf(moduleSchema, hostSchema, config);
  if (resolution.problems.length) refuse(resolution.problems.join("; "));
  if (resolution.missing.length) {
    const { config: proposed, sentence } = proposedConfig(moduleSchema, hostSchema, resolution.missing);
    return { file: CONFIG_FILE, text: `${JSON.stringify(proposed, null, 2)}\n`, sentence };
  }
  const newFile = project.schemaFolder && `${project.schemaFolder}/${SCHEMA_FOLDER_FILE}`;
  const merge = mergeSchemaFiles(files, moduleText, resolution, addedBefore, newFile);
  if (merge.conflicts.length) refuse(`${where}: ${merge.conflicts.join("; ")}`);
  return { changed: merge.changed, added: merge.added, where, names: resolution.names! };
}

/**
 * The host's model and fields for each of the module's host models, as the install resolved them (its schema and
 * lead-intake.config.json): how `host:uninstall` finds what the install added to them. The module's own names where
 * the schema or the config cannot be read.
 */
export function hostModelMap(host: HostFolder, files: string[], moduleRoot: string): ModelMap {
  try {
    const moduleSchema = parseSchema(readFileSync(path.join(moduleRoot, HOST_SCHEMA), "utf8"));
    const texts = files.map((file) => host.readText(file) ?? "");
    const hostSchema = parseSchema(texts.map((text) => (text.endsWith("\n") ? text : `${text}\n`)).join(""));
    const configText = host.readText(CONFIG_FILE);
    const parsed = configText === undefined ? undefined : parseNamesConfig(configText);
    const config = parsed && "config" in parsed ? (parsed.config as NamesConfig) : undefined;
    const { models, fields } = hostNamesOf(moduleSchema, hostSchema, config);
    return { models, fields };
  } catch {
    return { models: {}, fields: {} };
  }
}
