import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourceFiles } from "@/tests/helpers/source-files";

/**
 * Comments say why in a sentence or two and carry no history (CONTRIBUTING.md, "Code and comments"); detail and
 * figures go to docs/decisions.md. Migrations that have landed are never edited, so their SQL is not read.
 */
const PRODUCT = ["lib", "app", "bench", "scripts", "next.config.mjs", "instrumentation.ts", "prisma", ".ci"];
const CODE = /(\.(ts|tsx|mts|mjs|js|sh|prisma)|^\.ci\/[^.]+)$/;
/** Written by `npm run client:types` from the OpenAPI document, whose descriptions are prose. */
const GENERATED = new Set(["lib/client/openapi.ts", "lib/client/contract.ts"]);
/** Lines of prose a comment block may hold: two sentences at 120 columns. */
const MAX_TEXT_LINES = 3;
const HISTORY =
  /\b(no longer|used to|dates from|previously|formerly|any ?more|until recently|nowadays)\b|\bissues? #?\d/i;

interface Block {
  at: string;
  text: string[];
}

/** Each comment block of a file (a run of line comments, or one block comment) with its lines of prose. */
function commentBlocks(file: string): Block[] {
  const hash = /\.sh$|^\.ci\//.test(file);
  const blocks: Block[] = [];
  let current: Block | undefined;
  let inBlock = false;
  readFileSync(path.join(ROOT, file), "utf8")
    .split("\n")
    .forEach((line, index) => {
      const trimmed = line.trim();
      const opens = !inBlock && !hash && trimmed.startsWith("/*");
      const lineComment = hash ? /^#(?!!)/.test(trimmed) : trimmed.startsWith("//");
      if (!inBlock && !opens && !lineComment) {
        current = undefined;
        return;
      }
      if (opens || !current) blocks.push((current = { at: `${file}:${index + 1}`, text: [] }));
      current.text.push(trimmed);
      if (opens || inBlock) {
        inBlock = !trimmed.includes("*/") || (opens && trimmed === "/*");
        if (!inBlock) current = undefined;
      }
    });
  return blocks.map((block) => ({ ...block, text: block.text.map(prose).filter((text) => text !== null) }));
}

/**
 * A comment line's prose, or null for a line of none: a delimiter, a JSDoc type tag (the .mjs files' types), a
 * lint directive, or an indented command line of a script's usage.
 */
function prose(line: string): string | null {
  const text = line.replace(/^(\/\*\*?|\*\/|\/\/\/?|\*|#)/, "").replace(/\*\/$/, "");
  if (/^\s*$|^\s*@(param|returns?|type|typedef|property|template|ts-)|eslint-|^\s{2,}(npx|npm|node) /.test(text))
    return null;
  return text.trim();
}

describe("comments", () => {
  const product = sourceFiles(PRODUCT, CODE).filter(
    (file) => !GENERATED.has(file) && !file.startsWith("prisma/migrations/"),
  );

  it("are a sentence or two in product code", () => {
    expect(product.length).toBeGreaterThan(100);
    const long = product
      .flatMap(commentBlocks)
      .filter((block) => block.text.length > MAX_TEXT_LINES)
      .map((block) => `${block.at} (${block.text.length} lines)`);
    expect(long).toEqual([]);
  });

  it("carry no history, in product code and tests", () => {
    const files = [...product, ...sourceFiles(["tests"], CODE)];
    const historical = files
      .flatMap(commentBlocks)
      .flatMap((block) => block.text.filter((text) => HISTORY.test(text)).map((text) => `${block.at}: ${text}`));
    expect(files.length).toBeGreaterThan(200);
    expect(historical).toEqual([]);
  });
});
