import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { servedDocument } from "@/scripts/client-types";

/**
 * The two linters an integrator runs on the document: Redocly's
 * recommended ruleset (lib/openapi/redocly.yaml) and Spectral's spectral:oas (lib/openapi/spectral.yaml),
 * on the document as /openapi.json serves it, written to a temporary file. Neither may report anything, warnings
 * included.
 */
const root = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const bin = (name: string) => path.join(root, "node_modules/.bin", name);
const DOCUMENT = path.join(mkdtempSync(path.join(tmpdir(), "lead-intake-openapi-")), "openapi.json");
writeFileSync(DOCUMENT, JSON.stringify(servedDocument(), null, 2));

/** The linters exit non-zero when they find problems; their JSON report is on stdout either way. */
async function report(command: string, args: string[]): Promise<string> {
  try {
    // No usage telemetry or update check from a test run.
    const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
    return (await run(bin(command), args, { cwd: root, env, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

describe("OpenAPI document: linters", () => {
  it("passes Redocly's recommended ruleset with no problem", async () => {
    const out = await report("redocly", ["lint", DOCUMENT, "--config=lib/openapi/redocly.yaml", "--format=json"]);
    const { totals, problems } = JSON.parse(out);
    expect(problems).toEqual([]);
    expect(totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it("passes Spectral's spectral:oas ruleset with no problem", async () => {
    const out = await report("spectral", [
      "lint",
      DOCUMENT,
      "--ruleset=lib/openapi/spectral.yaml",
      "--format=json",
      "--quiet",
    ]);
    expect(JSON.parse(out)).toEqual([]);
  }, 60_000);
});
