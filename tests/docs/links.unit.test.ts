import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "@/tests/helpers/source-files";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** A page's text without fenced code blocks and inline code, where a link is an example, not a link. */
const prose = (text: string) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

/** Every relative link of a page: `[text](target)`, as the target file and its anchor. */
function relativeLinks(text: string): { target: string; file: string; anchor?: string }[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map(([, target]) => target)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [file, anchor] = target.split("#", 2);
      return { target, file, anchor };
    });
}

describe("relative links of the documentation", () => {
  it("finds the pages and their links", () => {
    expect(PAGES).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", "docs/host-guide.md"]));
    expect(relativeLinks(readFileSync(path.join(ROOT, "README.md"), "utf8")).length).toBeGreaterThan(10);
  });

  it("makes anchors as GitHub does", () => {
    const anchors = headingAnchors("# A: b, `c.d` (e)\n## Installing: one command\n## Notes\n## Notes\n");
    expect([...anchors]).toEqual(["a-b-cd-e", "installing-one-command", "notes", "notes-1"]);
  });

  it.each(PAGES)("%s: every relative link names a file that exists and an anchor it has", (page) => {
    const broken: string[] = [];
    for (const { target, file, anchor } of relativeLinks(readFileSync(path.join(ROOT, page), "utf8"))) {
      const resolved = file
        ? path.resolve(path.dirname(path.join(ROOT, page)), decodeURI(file))
        : path.join(ROOT, page);
      if (!existsSync(resolved)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor === undefined || statSync(resolved).isDirectory() || !resolved.endsWith(".md")) continue;
      if (!headingAnchors(readFileSync(resolved, "utf8")).has(anchor)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });
});

/** A heading the code cites as `docs/page.md, "Heading"`: the start of a heading of that page. */
const CITATION = /((?:docs\/)?[\w-]+\.md),? "([^"\n]+)"/g;

describe("sections the code cites", () => {
  it("every cited section is a heading of the page (the page from the root or from the citing file's folder)", () => {
    const missing: string[] = [];
    let cited = 0;
    for (const file of sourceFiles(["app", "lib", "scripts", "bench", "instrumentation.ts"], /\.(ts|tsx|mjs)$/)) {
      for (const [citation, page, heading] of readFileSync(path.join(ROOT, file), "utf8").matchAll(CITATION)) {
        const pages = [path.join(ROOT, page), path.join(ROOT, path.dirname(file), page)].filter((p) => existsSync(p));
        cited++;
        const headings = pages.flatMap((p) => readFileSync(p, "utf8").match(/^#{1,6} .+$/gm) ?? []);
        if (!headings.some((h) => h.replace(/^#+ /, "").startsWith(heading))) missing.push(`${file}: ${citation}`);
      }
    }
    expect(cited).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });
});
