import { printSchema, type Field, type Model } from "@mrleebo/prisma-ast";
import {
  columnFields,
  columnOf,
  fields,
  indexesOf,
  indexText,
  models,
  parseSchema,
  tableOf,
} from "./check/prisma-names";
import { schemaProblems } from "./schema-valid";

/** The host's model for each of the module's host models (null: none) and its field for each module field. */
export interface ModelMap {
  models: Record<string, string | null>;
  fields: Record<string, Record<string, string | null>>;
}

/**
 * The module's models merged into a host's schema as lines added to its text, so every line of the host's stays as it
 * was (docs/host-guide.md, "Installing: one command").
 */
export interface SchemaMerge {
  schema: string;
  /** Each model and field added, as `Model` or `Model.field`. */
  added: string[];
  /** Why the merge cannot be done; nothing is written when there is one. */
  conflicts: string[];
}

/**
 * Fields on the host's tables whose columns the module never reads or writes: a host's table may lack them, so the
 * install adds none of them and `host:check` does not look for their columns.
 */
export const HOST_OWN_FIELDS = new Set(["User.createdAt", "Referral.preferredAgentId", "Referral.preferredAgent"]);

const typeOf = (field: Field) => `${String(field.fieldType)}${field.array ? "[]" : ""}`;
const lineOf = (node: { location?: { startLine?: number } }) => (node.location?.startLine ?? 1) - 1;

/** A model of the module's schema as its text there: the comment lines right above it, through its closing brace. */
function modelText(lines: string[], model: Model): string {
  let start = lineOf(model);
  while (start > 0 && lines[start - 1].trimStart().startsWith("//")) start--;
  let end = lineOf(model);
  while (lines[end].trim() !== "}") end++;
  return lines.slice(start, end + 1).join("\n");
}

/** A field's line, with its name and type padded as the host's line it goes below pads them. */
function fieldLine(field: Field, below: string | undefined): string {
  const printed = printSchema({ type: "schema", list: [{ type: "model", name: "M", properties: [field] }] });
  const [, name, type, rest] = /^\s+(\S+)\s+(\S+)\s*(.*)$/.exec(printed.split("\n").find((l) => l.startsWith("  "))!)!;
  const columns = below ? /^(\s*\S+\s+)(\S+\s+)?/.exec(below) : null;
  const nameWidth = Math.max(columns?.[1].length ?? 0, name.length + 3);
  const typeWidth = Math.max(columns?.[2]?.length ?? 0, type.length + 1);
  return `${`  ${name}`.padEnd(nameWidth)}${rest ? type.padEnd(typeWidth) + rest : type}`.trimEnd();
}

/**
 * `names` (host-names-of.ts) maps the module's host models, which are never added: only fields the host lacks are.
 * `addedBefore`: fields earlier installs added; one the host removed is refused, as the module's code is typed by it.
 */
export function mergeSchemas(
  hostText: string,
  moduleText: string,
  names: ModelMap,
  addedBefore: ReadonlySet<string> = new Set(),
): SchemaMerge {
  const host = parseSchema(hostText);
  const ours = parseSchema(moduleText);
  const moduleLines = moduleText.split("\n");
  const hostLines = hostText.replace(/\n$/, "").split("\n");
  const added: string[] = [];
  const conflicts: string[] = [];
  /** Lines to add after a line of the host's text, by that line's index. */
  const inserts = new Map<number, string[]>();
  const appended: string[] = [];
  const hostByTable = new Map(models(host).map((m) => [tableOf(m), m]));
  const isHostModel = (model: Model) => model.name in names.models;
  const hostModelOf = (model: Model) =>
    isHostModel(model)
      ? models(host).find((m) => m.name === names.models[model.name])
      : hostByTable.get(tableOf(model));
  const moduleAdded = new Set(
    models(ours)
      .filter((m) => !isHostModel(m) && !hostByTable.has(tableOf(m)))
      .map((m) => m.name),
  );

  /**
   * The module's `@@index` entries of a host model that the host's lacks, in the host's field names (its migrations
   * create them on the host's table under Prisma's default name: scripts/host/render-migration.ts), after the model's
   * last attribute, else after its last field and a blank line. One on a field the host has not (null) is not made.
   */
  const addIndexes = (wanted: Model, existing: Model) => {
    const own = new Set(indexesOf(existing).map(({ keys }) => indexText(keys)));
    const lines: string[] = [];
    for (const { keys } of indexesOf(wanted)) {
      const hostKeys = keys.map((key) => ({ ...key, field: names.fields[wanted.name]?.[key.field] }));
      if (hostKeys.some((key) => key.field === null)) continue;
      const text = indexText(keys.map((key, i) => ({ ...key, field: hostKeys[i]?.field ?? key.field })));
      if (own.has(text)) continue;
      lines.push(`  ${text}`);
      added.push(`${wanted.name}${indexText(keys)}`);
    }
    if (!lines.length) return;
    const attributes = existing.properties.filter((p) => p.type === "attribute");
    const last = (nodes: { location?: { startLine?: number } }[]) => Math.max(...nodes.map(lineOf));
    const after = attributes.length
      ? last(attributes)
      : fields(existing).length
        ? last(fields(existing))
        : lineOf(existing);
    const at = inserts.get(after) ?? [];
    at.push(...(attributes.length ? lines : ["", ...lines]));
    inserts.set(after, at);
  };

  for (const wanted of models(ours)) {
    const existing = hostModelOf(wanted);
    if (!existing) {
      // A host model the host has not (AuditEntry mapped to none) is never added: only the module's own are.
      if (isHostModel(wanted)) continue;
      const taken = models(host).find((m) => m.name === wanted.name);
      if (taken)
        conflicts.push(
          `model ${wanted.name} of the host maps table ${tableOf(taken)}; ` +
            `the module needs that name for ${tableOf(wanted)}`,
        );
      appended.push(withHostModels(modelText(moduleLines, wanted), wanted, names));
      added.push(wanted.name);
      continue;
    }
    const hostField = (field: Field) => (isHostModel(wanted) ? names.fields[wanted.name]?.[field.name] : field.name);
    const wantedColumns = new Set(columnFields(ours, wanted));
    const hostColumns = columnFields(host, existing);
    for (const field of fields(wanted)) {
      const name = `${wanted.name}.${field.name}`;
      const ownName = hostField(field);
      if (ownName === null) continue;
      const own = fields(existing).find((f) => f.name === (ownName ?? field.name));
      const column = wantedColumns.has(field);
      if (own) {
        // A host model's fields are the host's to name and type: host-names-of.ts checks that they hold the values.
        if (!isHostModel(wanted) && column && (columnOf(own) !== columnOf(field) || typeOf(own) !== typeOf(field))) {
          conflicts.push(
            `${name} is ${typeOf(own)} on column ${columnOf(own)} in the host's schema; ` +
              `the module needs ${typeOf(field)} on column ${columnOf(field)}`,
          );
        }
        continue;
      }
      if (HOST_OWN_FIELDS.has(name) || !(column || moduleAdded.has(String(field.fieldType)))) continue;
      if (addedBefore.has(name)) {
        conflicts.push(
          `${name} (column ${tableOf(wanted)}.${columnOf(field)}), which an earlier install added, was removed from ` +
            "the host's schema; the module's code is typed by it: put the field back",
        );
        continue;
      }
      const anchors = column && hostColumns.length ? hostColumns : fields(existing);
      const after = anchors.length ? lineOf(anchors[anchors.length - 1]) : lineOf(existing);
      const lines = inserts.get(after) ?? [];
      lines.push(fieldLine(field, anchors.length ? hostLines[after] : undefined));
      inserts.set(after, lines);
      added.push(name);
    }
    if (isHostModel(wanted)) addIndexes(wanted, existing);
  }
  const schema =
    [...hostLines.flatMap((line, i) => [line, ...(inserts.get(i) ?? [])]), ...appended.flatMap((m) => ["", m])].join(
      "\n",
    ) + "\n";
  const problems = conflicts.length ? [] : schemaProblems([["schema.prisma", schema]]);
  if (problems.length) conflicts.push(`the merged schema is not valid: ${problems.join("; ")}`);
  return { schema, added, conflicts };
}

/**
 * A module model's text with each relation to a host model written with the host's model and fields: the type, and
 * `references`, whose fields are the host's names for the module's.
 */
function withHostModels(text: string, model: Model, names: ModelMap): string {
  let result = text;
  for (const field of fields(model)) {
    const target = String(field.fieldType);
    const hostModel = names.models[target];
    if (!hostModel) continue;
    result = result.replace(
      new RegExp(`^(\\s+${field.name}\\s+)${target}\\b([^\\n]*)$`, "m"),
      (_, head: string, rest: string) =>
        `${head}${hostModel}${rest.replace(
          /references: \[([^\]]*)\]/,
          (_m, list: string) =>
            `references: [${list
              .split(",")
              .map((name) => names.fields[target]?.[name.trim()] ?? name.trim())
              .join(", ")}]`,
        )}`,
    );
  }
  return result;
}
