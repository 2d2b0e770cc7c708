import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * An "Edit <file>: ..." step the install printed, done as its developer would: its code put on a new line after the
 * line it names (indented as that line, one level in), in place of the text it names, or at the file's end.
 */
export function applyEditStep(step: string, folder: string): void {
  const [, file, how] = /^Edit ([^:]+): .*?: ((?:put|replace|add) `.*)$/.exec(step) ?? [];
  if (!file || !how) throw new Error(`not an edit the install prints: ${step}`);
  const target = path.join(folder, file);
  const text = readFileSync(target, "utf8");
  const lines = text.split("\n");
  const after = /^put `([^`]+)` on a new line after `([^`]+)`$/.exec(how);
  const replace = /^replace `([^`]+)` with `([^`]+)`$/.exec(how);
  const atEnd = /^add `([^`]+)` at its end$/.exec(how);
  const at = after ? lines.findIndex((line) => line.trim() === after[2]) : -1;
  let edited: string | undefined;
  if (after && at >= 0) {
    lines.splice(at + 1, 0, `${/^\s*/.exec(lines[at])?.[0] ?? ""}  ${after[1]}`);
    edited = lines.join("\n");
  } else if (replace && text.split(replace[1]).length === 2) edited = text.replace(replace[1], () => replace[2]);
  else if (atEnd) edited = `${text.replace(/\n*$/, "\n")}\n${atEnd[1]}\n`;
  if (edited === undefined) throw new Error(`the edit does not fit ${file}: ${step}`);
  writeFileSync(target, edited);
}
