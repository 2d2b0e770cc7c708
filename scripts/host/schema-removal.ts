import type { Field, Model } from "@mrleebo/prisma-ast";
import { indexesOf, indexText, parseSchema } from "./check/prisma-names";
import type { ModelMap } from "./schema";

/**
 * The host's schema text without the models, fields and indexes an install added (`Model`, `Model.field` or
 * `Model@@index([...])`, by the module's names, which `names` maps to the host's), removed by whole lines so every
 * other line stays as the host has it. `missing` names those the host removed.
 */
export function withoutAdded(
  text: string,
  added: string[],
  names: ModelMap = { models: {}, fields: {} },
): { schema: string; missing: string[] } {
  const schema = parseSchema(text);
  const lines = text.split("\n");
  const drop = new Set<number>();
  const missing: string[] = [];
  const modelsByName = new Map(
    schema.list.filter((b): b is Model => b.type === "model").map((model) => [model.name, model]),
  );
  /** The index lines dropped, each the first of the added ones after a blank line the install put with them. */
  const indexLines: number[] = [];
  for (const entry of added) {
    const index = /^(\w+)@@index\(\[(.*)\]\)$/.exec(entry);
    const [modelName = "", fieldName] = index ? [index[1], undefined] : entry.split(".");
    const hostFields = names.fields[modelName] ?? {};
    const model = modelsByName.get(names.models[modelName] ?? modelName);
    if (!model?.location?.startLine) {
      missing.push(entry);
      continue;
    }
    let first = model.location.startLine - 1;
    if (index) {
      const keys = (index[2] ?? "")
        .split(",")
        .map((key) => /^\s*(\w+)(\(sort: Desc\))?\s*$/.exec(key))
        .map((key) => ({ field: hostFields[key?.[1] ?? ""] ?? key?.[1] ?? "", desc: Boolean(key?.[2]) }));
      const line = indexesOf(model).find((own) => indexText(own.keys) === indexText(keys))?.line;
      if (line === undefined) missing.push(entry);
      else {
        drop.add(line);
        indexLines.push(line);
      }
      continue;
    }
    if (fieldName === undefined) {
      let last = first;
      // The comment lines right above it came with it (scripts/host/schema.ts).
      while (first > 0 && lines[first - 1]?.trimStart().startsWith("//")) first--;
      while (last < lines.length && lines[last]?.trim() !== "}") last++;
      for (let line = first; line <= last; line++) drop.add(line);
      // The blank line that set the model apart.
      if (lines[first - 1]?.trim() === "") drop.add(first - 1);
      else if (lines[last + 1]?.trim() === "") drop.add(last + 1);
      continue;
    }
    if (added.includes(modelName)) continue;
    const ownField = hostFields[fieldName] ?? fieldName;
    const field = model.properties.find((p): p is Field => p.type === "field" && p.name === ownField);
    if (field?.location?.startLine) drop.add(field.location.startLine - 1);
    else missing.push(entry);
  }
  // A model without attributes of its own got its indexes after a blank line: it goes with them.
  for (const line of indexLines) {
    let before = line - 1;
    while (drop.has(before)) before--;
    let after = line + 1;
    while (drop.has(after)) after++;
    if (lines[before]?.trim() === "" && lines[after]?.trim() === "}") drop.add(before);
  }
  return { schema: lines.filter((_, i) => !drop.has(i)).join("\n"), missing };
}
