import type { Enum, Field, Model, Schema } from "@mrleebo/prisma-ast";
import { HOST_FIELDS, parseHostNames, type HostModel, type HostNames } from "@/lib/db/host-names";
import { LEAD_STATUSES } from "@/lib/leads/schemas";
import { CONFIG_FILE, HOST_MODELS, type NamesConfig } from "./names-config";
import { columnFields, columnOf, fields, models, tableOf } from "./check/prisma-names";
import { HOST_OWN_FIELDS } from "./schema";

/** How the module's host models are found in a host's schema, and what stands in the way. */
export interface Resolution {
  /** The host's table and column names, as lib/db/host-names.json holds them; none while there are problems. */
  names?: HostNames;
  /** The host's model for each of the module's (null: none, AuditEntry only), and its field for each module field. */
  models: Record<HostModel, string | null>;
  fields: Record<HostModel, Record<string, string | null>>;
  /** Module fields the host's model lacks and the config does not name: the install adds them (`Model.field`). */
  added: string[];
  /** One sentence each: a model or field the config names that is not there, a type that cannot hold the values. */
  problems: string[];
  /** The module's models that no host model of their name stands for, where there is no config file. */
  missing: HostModel[];
}

const enums = (schema: Schema) => schema.list.filter((block): block is Enum => block.type === "enum");
const unquote = (value: unknown) => (typeof value === "string" ? value.replace(/^"|"$/g, "") : undefined);

/** An enum's database name (its @@map, else its name) and its labels as the database has them (each @map). */
function enumOf(schema: Schema, name: string): { type: string; labels: string[] } | undefined {
  const found = enums(schema).find((e) => e.name === name);
  if (!found) return undefined;
  let type = found.name;
  const labels: string[] = [];
  for (const item of found.enumerators) {
    if (item.type === "attribute" && item.name === "map") type = unquote(item.args?.[0]?.value) ?? type;
    if (item.type !== "enumerator") continue;
    const map = item.attributes?.find((a) => a.name === "map");
    labels.push(unquote(map?.args?.[0]?.value) ?? item.name);
  }
  return { type, labels };
}

/** A timestamp column with time zone: `@db.Timestamptz`; Prisma's default for DateTime is `timestamp(3)`, without. */
const withTimeZone = (field: Field) => field.attributes?.some((a) => a.group === "db" && a.name === "Timestamptz");

/**
 * Why the host's field cannot hold the module's field's values, in words ending with the fix; undefined when it can.
 * `status` may be an enum whose labels include LEAD_STATUSES, those the module writes; User.id is the contract's
 * numericId, an integer.
 */
function typeProblem(host: Schema, model: HostModel, wanted: Field, own: Field): string | undefined {
  const wantedType = `${String(wanted.fieldType)}${wanted.array ? "[]" : ""}`;
  const ownType = `${String(own.fieldType)}${own.array ? "[]" : ""}`;
  if (wantedType === ownType) return undefined;
  const statusEnum = model === "Referral" && wanted.name === "status" && !own.array && enumOf(host, ownType);
  if (statusEnum) {
    const lacking = LEAD_STATUSES.filter((label) => !statusEnum.labels.includes(label));
    if (!lacking.length) return undefined;
    return `an enum without ${lacking.join(" and ")}; the module writes ${LEAD_STATUSES.join(" and ")}: add them to enum ${ownType}`;
  }
  const contract = model === "User" && wanted.name === "id" ? "; the contract's numericId is an integer" : "";
  const article = /^[AEIOU]/.test(ownType) ? "an" : "a";
  return `${article} ${ownType}${contract}; map it to a field of type ${wantedType}`;
}

/**
 * The host's names for the module's host models, from the host's schema and its config (undefined: no file): each
 * model's table, each field's column, enum type, time zone and nullability, as lib/db/host-names.json holds them.
 * Reads nothing and writes nothing.
 */
export function hostNamesOf(moduleSchema: Schema, host: Schema, config: NamesConfig | undefined): Resolution {
  const resolution: Resolution = {
    models: {} as Resolution["models"],
    fields: {} as Resolution["fields"],
    added: [],
    problems: [],
    missing: [],
  };
  const hostModels = models(host);
  const names: Record<string, LooseNames | null> = {};
  for (const name of HOST_MODELS) {
    const entry = config?.models[name];
    if (entry === null) {
      resolution.models[name] = null;
      resolution.fields[name] = {};
      names[name] = null;
      continue;
    }
    const wanted = models(moduleSchema).find((m) => m.name === name)!;
    const hostName = entry?.model ?? name;
    const own = hostModels.find((m) => m.name === hostName);
    resolution.models[name] = hostName;
    resolution.fields[name] = {};
    if (!own) {
      if (config)
        resolution.problems.push(
          `${CONFIG_FILE}: models.${name}${entry?.model ? ".model" : ""} names ${hostName}, which the host's schema ` +
            `does not have; name one of its models (${hostModels.map((m) => m.name).join(", ")})`,
        );
      else resolution.missing.push(name);
      continue;
    }
    names[name] = modelNames(host, name, wanted, own, entry?.fields ?? {}, resolution);
  }
  if (resolution.problems.length === 0 && resolution.missing.length === 0) resolution.names = parseHostNames(names);
  return resolution;
}

/** One model's names as they are gathered, before the whole is checked by the names file's own schema. */
interface LooseNames {
  table: string;
  columns: Record<string, string | null>;
  enums: Record<string, string>;
  withoutTimeZone: string[];
  nullable: string[];
}

function modelNames(
  host: Schema,
  name: HostModel,
  wanted: Model,
  own: Model,
  configured: Record<string, string | null>,
  resolution: Resolution,
): LooseNames {
  const names: LooseNames = { table: tableOf(own), columns: {}, enums: {}, withoutTimeZone: [], nullable: [] };
  const columns = names.columns;
  const ownColumns = columnFields(host, own);
  for (const fieldName of HOST_FIELDS[name] as readonly string[]) {
    const field = fields(wanted).find((f) => f.name === fieldName)!;
    const hostField = configured[fieldName] === undefined ? fieldName : configured[fieldName];
    resolution.fields[name][fieldName] = hostField;
    if (hostField === null) {
      columns[fieldName] = null;
      continue;
    }
    const found = ownColumns.find((f) => f.name === hostField);
    if (!found) {
      if (fieldName in configured)
        resolution.problems.push(
          `${CONFIG_FILE}: models.${name}.fields.${fieldName} names ${hostField}, which the host's model ${own.name} ` +
            "does not have as a column field; name one of its fields",
        );
      // The module's field, with the module's column: the install adds it, unless the module never uses it.
      else if (!HOST_OWN_FIELDS.has(`${name}.${fieldName}`)) resolution.added.push(`${name}.${fieldName}`);
      columns[fieldName] = columnOf(field);
      if (field.fieldType === "DateTime" && !withTimeZone(field)) names.withoutTimeZone.push(fieldName);
      continue;
    }
    const problem = typeProblem(host, name, field, found);
    if (problem) {
      resolution.problems.push(`${name}.${fieldName} maps to ${own.name}.${found.name}, ${problem}`);
      continue;
    }
    columns[fieldName] = columnOf(found);
    const statusEnum = enumOf(host, String(found.fieldType));
    if (statusEnum) names.enums[fieldName] = statusEnum.type;
    if (found.fieldType === "DateTime" && !withTimeZone(found)) names.withoutTimeZone.push(fieldName);
    if (found.optional && !field.optional) names.nullable.push(fieldName);
  }
  return names;
}
