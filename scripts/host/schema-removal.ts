import type { Field, Model } from "@mrleebo/prisma-ast";
import { parseSchema } from "./prisma-names";

/**
 * The host's schema text without the models and fields an install added (`Model` or `Model.field`), removed by whole
 * lines so every other line stays as the host has it. `missing` names those the host removed.
 */
export function withoutAdded(text: string, added: string[]): { schema: string; missing: string[] } {
  const schema = parseSchema(text);
  const lines = text.split("\n");
  const drop = new Set<number>();
  const missing: string[] = [];
  const modelsByName = new Map(
    schema.list.filter((b): b is Model => b.type === "model").map((model) => [model.name, model]),
  );
  for (const entry of added) {
    const [modelName, fieldName] = entry.split(".");
    const model = modelsByName.get(modelName);
    if (!model?.location?.startLine) {
      missing.push(entry);
      continue;
    }
    let first = model.location.startLine - 1;
    if (fieldName === undefined) {
      let last = first;
      // The comment lines right above it came with it (scripts/host/schema.ts).
      while (first > 0 && lines[first - 1].trimStart().startsWith("//")) first--;
      while (last < lines.length && lines[last].trim() !== "}") last++;
      for (let line = first; line <= last; line++) drop.add(line);
      // The blank line that set the model apart.
      if (lines[first - 1]?.trim() === "") drop.add(first - 1);
      else if (lines[last + 1]?.trim() === "") drop.add(last + 1);
      continue;
    }
    if (added.includes(modelName)) continue;
    const field = model.properties.find((p): p is Field => p.type === "field" && p.name === fieldName);
    if (field?.location?.startLine) drop.add(field.location.startLine - 1);
    else missing.push(entry);
  }
  return { schema: lines.filter((_, i) => !drop.has(i)).join("\n"), missing };
}
