import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "@/tests/helpers/source-files";

/**
 * npm passes SIGTERM and SIGINT to the shell that runs a script, which dies without passing them on: a script an
 * operator runs as a service execs its one process, so that the signal reaches it (npm-signals.http.test.ts).
 */
const LONG_RUNNING = ["start", "serve", "dev", "import"];

describe("the npm scripts an operator runs as a service", () => {
  const scripts: Record<string, string> = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts;

  it.each(LONG_RUNNING)("%s execs its one process", (name) => {
    expect(scripts[name]).toMatch(/^exec node [^;&|]+$/);
  });
});
