// Where the server's CPU per POST goes, for the service and the framework floor (bench/README.md, "Profiling").
// After `npm run build` and `npx next build bench/floor`:
//   npx tsx bench/profile.ts
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { removeEmbeddedCluster, startEmbeddedPostgres } from "@/lib/runtime/embedded-postgres.mjs";
import { heapArgs } from "@/lib/runtime/next-server-heap.mjs";
import { freePort, startProcessGroup } from "@/scripts/process-group";
import { withCpu } from "./cpu";
import { profileShares } from "./cpu-profile";
import { KEY, load } from "./load";
import { WARM_SECONDS } from "./post";

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 15);
const CONNECTIONS = 16;
const nextBin = fileURLToPath(import.meta.resolve("next/dist/bin/next"));

async function profileServer(name: "service" | "floor"): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "lead-intake-profile-"));
  const dataDir = await mkdtemp(path.join(tmpdir(), "lead-intake-profile-pg-"));
  const database = await startEmbeddedPostgres({
    dir: dataDir,
    port: await freePort(),
    database: "bench",
    persistent: false,
  });
  try {
    const port = await freePort();
    const env = { DATABASE_URL: database.url, LEADS_API_KEY: KEY, PORT: String(port) };
    if (name === "service") {
      const prepared = spawnSync("npx", ["tsx", "scripts/prepare-db.ts"], {
        env: { ...process.env, ...env },
        stdio: "inherit",
      });
      if (prepared.status !== 0) throw new Error("preparing the database failed");
    }
    const url = `http://127.0.0.1:${port}${name === "service" ? "/api/leads" : "/api/noop"}`;
    const args = ["--cpu-prof", `--cpu-prof-dir=${dir}`, ...heapArgs(), nextBin, "start"];
    const group = await startProcessGroup(
      process.execPath,
      [...args, ...(name === "floor" ? ["bench/floor"] : []), "-p", String(port)],
      env,
      url,
    );
    let window: [bigint, bigint] = [0n, 0n];
    let measured;
    try {
      await load(url, CONNECTIONS, WARM_SECONDS, "POST");
      measured = await withCpu(group, dataDir, async () => {
        const from = process.hrtime.bigint() / 1000n;
        const result = await load(url, CONNECTIONS, SECONDS, "POST");
        window = [from, process.hrtime.bigint() / 1000n];
        return result;
      });
    } finally {
      await group.stop(); // the profile is written as the server exits
    }
    const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
    if (!file) throw new Error(`${name}: no CPU profile written`);
    const { server, database: postgres, machine } = measured.cpuMs;
    console.log(
      `\n${name}: ${measured.rps} req/s at ${CONNECTIONS} connections; CPU ms per request: server ${server}, ` +
        `PostgreSQL ${postgres}, machine ${machine}. The server's, by share of main-thread samples:`,
    );
    for (const [kind, share] of profileShares(path.join(dir, file), window[0], window[1])) {
      if (share >= 0.002)
        console.log(`  ${(share * server).toFixed(3)} ms  ${(100 * share).toFixed(1).padStart(5)}%  ${kind}`);
    }
  } finally {
    await database.stop();
    await rm(dir, { recursive: true, force: true });
    removeEmbeddedCluster(dataDir);
  }
}

for (const name of process.argv.length > 2 ? process.argv.slice(2) : ["floor", "service"])
  await profileServer(name as "service" | "floor");
