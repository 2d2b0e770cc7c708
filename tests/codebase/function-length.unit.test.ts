import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT, sourceFiles } from "@/tests/helpers/source-files";

/**
 * A function short enough to read at once: the importer's run is a sequence of phases, each a function of its own,
 * rather than one body over shared variables.
 */
const FOLDERS = ["lib/importer"];
const MAX_LINES = 80;

/** Each function of a file (declarations, methods, arrows, expressions) with the lines it spans. */
function functionsOf(file: string): { at: string; lines: number }[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const found: { at: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = line(node.getStart(source));
      found.push({ at: `${file}:${start + 1}`, lines: line(node.getEnd()) - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("functions", () => {
  const functions = sourceFiles(FOLDERS, /\.ts$/).flatMap(functionsOf);

  it(`are at most ${MAX_LINES} lines long in ${FOLDERS.join(", ")}`, () => {
    expect(functions.length).toBeGreaterThan(30);
    expect(functions.filter((fn) => fn.lines > MAX_LINES).map((fn) => `${fn.at} (${fn.lines} lines)`)).toEqual([]);
  });
});
