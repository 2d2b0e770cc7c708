// The packages of a pnpm workspace, from its root's pnpm-workspace.yaml (Turborepo's default layout), read as pnpm
// reads them: the `packages:` list of globs, a leading `!` excluding.

/** The `packages:` globs of a pnpm-workspace.yaml, in block (`- "apps/*"`) or flow (`["apps/*"]`) form. */
export function pnpmWorkspacePatterns(text: string): string[] {
  const lines = text.split(/\r?\n/).map((line) => line.replace(/\s+#.*$/, ""));
  const at = lines.findIndex((line) => /^packages\s*:/.test(line));
  if (at < 0) return [];
  const unquote = (item: string) => item.trim().replace(/^(['"])(.*)\1$/, "$2");
  const flow = /^packages\s*:\s*\[(.*)\]\s*$/.exec(lines[at]);
  if (flow) return flow[1].split(",").map(unquote).filter(Boolean);
  const patterns: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.trim()) continue;
    const item = /^\s+-\s+(.+)$/.exec(line);
    if (!item) break;
    patterns.push(unquote(item[1]));
  }
  return patterns;
}
