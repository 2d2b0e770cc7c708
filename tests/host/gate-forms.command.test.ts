import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateEdit, gateStep, MODULE_PATHS, type GateForm } from "@/scripts/host/check/gate";
import { applyEditStep } from "../helpers/gate-edit";
import { FIXTURES, MACHINE, mustRun, run } from "../helpers/host-app";

/**
 * Each sample gate of tests/fixtures/gates with its packages from the registry (Next 16, Auth.js v5, Clerk,
 * better-auth): the install's printed edit applied, the gate type-checked by `tsc --noEmit` (strict), and then run as
 * Next runs it (tests/fixtures/gates-run/run-gates.ts, through tsx): for a request without a session, its
 * `config.matcher` as Next compiles it, and its exported proxy or middleware. Each of the module's paths gets through
 * (not matched, or passed on), and /referrals is still sent away as before the edit. No network: Clerk runs on a
 * production key made up here, Auth.js on a made-up secret.
 */
const PACKAGES = {
  next: "16.4.5",
  react: "19.3.1",
  "react-dom": "19.3.1",
  "next-auth": "5.0.0-beta.32",
  "@clerk/nextjs": "7.9.17",
  "better-auth": "1.7.25",
  typescript: "5.9.3",
  tsx: "4.23.15",
  "@types/node": "20.19.43",
  "@types/react": "19.3.0",
};

const FORMS: [string, GateForm][] = [
  ["function-proxy.ts", "function"],
  ["better-auth.ts", "function"],
  ["authjs-callback.ts", "auth-callback"],
  ["authjs-async-callback.ts", "auth-callback"],
  ["authjs-export.ts", "auth-export"],
  ["authjs-export-default.ts", "auth-export"],
  ["clerk.ts", "clerk"],
  ["clerk-protected.ts", "clerk"],
];
/** A path under each of the module's paths, beside the paths themselves. */
const MODULE_REQUESTS = [...MODULE_PATHS, "/api/leads/sources", "/swagger-ui/swagger-ui.css", "/docs/"];
const PATHS = [...MODULE_REQUESTS, "/referrals"];
/** Clerk's publishable key names its frontend API, base64 with a `$`: a production one, which needs no handshake. */
const CLERK_KEY = `pk_live_${Buffer.from("clerk.example.com$").toString("base64")}`;
const SECRETS = {
  AUTH_SECRET: "a".repeat(40),
  CLERK_PUBLISHABLE_KEY: CLERK_KEY,
  NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY: CLERK_KEY,
  CLERK_SECRET_KEY: "sk_live_made_up_for_the_test",
  CLERK_TELEMETRY_DISABLED: "1",
  NEXT_TELEMETRY_DISABLED: "1",
};

/** What run-gates.ts saw of one gate for one path. */
interface Seen {
  matched: boolean;
  status?: number;
  next?: string;
  location?: string;
  rewrite?: string;
}

let dir: string;
const steps = new Map<string, string>();
let typecheck: string;
let seen: Record<string, Record<string, Seen>>;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "lead-intake-gates-"));
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "gates", private: true, type: "module", dependencies: PACKAGES }),
  );
  mustRun("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], dir, MACHINE);
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["dom", "dom.iterable", "esnext"],
        strict: true,
        noEmit: true,
        module: "esnext",
        moduleResolution: "bundler",
        skipLibCheck: true,
        isolatedModules: true,
        jsx: "preserve",
      },
      include: ["before/*.ts", "after/*.ts"],
    }),
  );
  for (const folder of ["before", "after"]) {
    mkdirSync(path.join(dir, folder));
    for (const file of [...FORMS.map(([f]) => f), "auth.ts"])
      copyFileSync(path.join(FIXTURES, "gates", file), path.join(dir, folder, file));
  }
  for (const [file] of FORMS) {
    const edit = gateEdit(readFileSync(path.join(dir, "after", file), "utf8"));
    if (!edit) throw new Error(`no edit for ${file}`);
    const step = gateStep(`after/${file}`, edit);
    steps.set(file, step);
    applyEditStep(step, dir);
  }
  copyFileSync(path.join(FIXTURES, "gates-run/run-gates.ts"), path.join(dir, "run-gates.ts"));
  typecheck = run("npx", ["tsc", "--noEmit", "-p", "."], dir).output;
  const gates = FORMS.flatMap(([file]) => [`./before/${file}`, `./after/${file}`]);
  const output = mustRun("npx", ["tsx", "run-gates.ts", PATHS.join(","), ...gates], dir, SECRETS);
  seen = JSON.parse(output.trim().split("\n").at(-1)!) as typeof seen;
}, 900_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Whether the gate let a request through: not run for it, or its answer passed it on (Clerk: rewritten to itself). */
const through = ({ matched, status, next, location, rewrite }: Seen, pathname: string) =>
  !matched ||
  status === undefined ||
  (next === "1" && !location) ||
  (rewrite === `http://localhost${pathname}` && !location && status < 300);

describe("each form of a host's gate with the install's edit: type-checked, the module's paths let through", () => {
  it.each(FORMS)("%s (%s): the edit the install prints, in its form", (file, form) => {
    const step = steps.get(file)!;
    expect(step).toMatch(new RegExp(`^Edit after/${file.replace(".", "\\.")}: `));
    expect(gateEdit(readFileSync(path.join(FIXTURES, "gates", file), "utf8"))?.form).toBe(form);
  });

  it("type-checks every gate, before and after its edit, with its packages' types (strict)", () => {
    expect(typecheck.split("\n").filter((line) => /error TS/.test(line))).toEqual([]);
  });

  it.each(FORMS)("%s: lets the module's paths through once edited, which it did not all before", (file) => {
    const before = seen[`./before/${file}`]!;
    const after = seen[`./after/${file}`]!;
    expect(Object.fromEntries(MODULE_REQUESTS.map((p) => [p, through(after[p]!, p)]))).toEqual(
      Object.fromEntries(MODULE_REQUESTS.map((p) => [p, true])),
    );
    expect(MODULE_REQUESTS.filter((p) => !through(before[p]!, p))).not.toEqual([]);
  });

  it.each(FORMS)("%s: still sends /referrals without a session away, as before the edit", (file) => {
    const before = seen[`./before/${file}`]!["/referrals"]!;
    const after = seen[`./after/${file}`]!["/referrals"]!;
    expect(through(after, "/referrals")).toBe(false);
    expect({ ...after, rewrite: after.rewrite?.replace(/\d+$/, "") }).toEqual({
      ...before,
      rewrite: before.rewrite?.replace(/\d+$/, ""),
    });
  });
});
