import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrate } from "@/lib/db/migrate";
import { removeEmbeddedCluster, startEmbeddedPostgres } from "@/lib/runtime/embedded-postgres.mjs";
import { freePort } from "@/scripts/process-group";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL template of the throw-away test cluster: replace {db} with a database name. */
    postgresUrl: string;
    /** Database migrated once; each test file copies it (CREATE DATABASE … TEMPLATE). */
    templateDatabase: string;
  }
}

const TEMPLATE = "lead_intake_template";

/** One throw-away PostgreSQL cluster for the whole run, with a migrated template database. */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(path.join(tmpdir(), "lead-intake-test-pg-"));
  const server = await startEmbeddedPostgres({ dir, port: await freePort(), database: TEMPLATE, persistent: false });
  // Its one line per migration applied (docs/operating.md) would open every run's log, above the failures.
  const log = console.log;
  console.log = () => {};
  try {
    await migrate(server.url);
  } finally {
    console.log = log;
  }
  project.provide("postgresUrl", server.urlOf("{db}"));
  project.provide("templateDatabase", TEMPLATE);
  return async () => {
    await server.stop();
    removeEmbeddedCluster(dir);
  };
}
