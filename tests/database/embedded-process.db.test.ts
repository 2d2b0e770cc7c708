import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { removeEmbeddedCluster, startEmbeddedPostgres } from "@/lib/runtime/embedded-postgres.mjs";
import { freePort } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/key";
import {
  OPERATOR_SECRET,
  server,
  login,
  asSuperuser,
  trustFile,
  environmentOf,
  ALLOWED_ENVIRONMENT,
  setUpEmbeddedCluster,
} from "../helpers/embedded-cluster";

setUpEmbeddedCluster();

describe("the embedded PostgreSQL's process", () => {
  it("starts with a minimal environment: no key and nothing of the operator's, in the postmaster or a backend", async () => {
    const postmaster = environmentOf(server.pid);
    const [, , backend] = await asSuperuser(
      server.url,
      "CREATE TEMP TABLE environment (line text)",
      "COPY environment FROM PROGRAM 'env'",
      "SELECT line FROM environment",
    );
    const backendNames = backend
      .map(({ line }) => String(line).split("=")[0])
      .filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
    expect(backendNames).toContain("PATH");
    for (const names of [[...postmaster.keys()], backendNames]) {
      expect(names.filter((name) => !ALLOWED_ENVIRONMENT.test(name))).toEqual([]);
    }
    const everything = [...postmaster.values(), ...backend.map(({ line }) => String(line))].join("\n");
    expect(everything).not.toContain(TEST_KEY);
    expect(everything).not.toContain(OPERATOR_SECRET);
  });

  it("reads the access rules and settings from files fixed on its command line: ALTER SYSTEM SET hba_file is outranked", async () => {
    const own = await mkdtemp(path.join(tmpdir(), "lead-intake-hba-pg-"));
    const ownPort = await freePort();
    let cluster = await startEmbeddedPostgres({ dir: own, port: ownPort, database: "own" });
    try {
      const trust = await trustFile();
      await asSuperuser(cluster.url, `ALTER SYSTEM SET hba_file = '${trust}'`);
      await cluster.stop();
      cluster = await startEmbeddedPostgres({ dir: own, port: ownPort, database: "own" });
      const [[hba], [config]] = await asSuperuser(cluster.url, "SHOW hba_file", "SHOW config_file");
      expect(hba.hba_file).toBe(path.join(own, "pg_hba.conf"));
      expect(config.config_file).toBe(path.join(own, "postgresql.conf"));
      expect(await login(`postgresql://postgres:wrong@127.0.0.1:${ownPort}/own`)).toBe("refused 28P01");
      await rm(path.dirname(trust), { recursive: true, force: true });
    } finally {
      await cluster.stop();
      removeEmbeddedCluster(own);
    }
  }, 60_000);
});
