import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { migrate } from "@/lib/db/migrate";
import {
  embeddedUrl,
  removeEmbeddedCluster,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from "@/lib/runtime/embedded-postgres.mjs";
import { freePort } from "@/scripts/process-group";

/**
 * A migrated PostgreSQL cluster of one test file's own, for tests that stop,
 * freeze or kill the database (the shared test cluster never is). Kept on disk, so
 * that it starts again with its data, on the same port.
 */
export class OwnCluster {
  server: EmbeddedPostgresServer | undefined;

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly database: string,
  ) {}

  static async create(database: string): Promise<OwnCluster> {
    const cluster = new OwnCluster(
      await mkdtemp(path.join(tmpdir(), `lead-intake-${database}-pg-`)),
      await freePort(),
      database,
    );
    await cluster.start();
    await migrate(cluster.url);
    return cluster;
  }

  get url(): string {
    return embeddedUrl(this.dir, this.port, this.database);
  }

  /** Starts it on its data folder; after a kill -9 the old backends may need a moment to go. */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        this.server = await startEmbeddedPostgres({
          dir: this.dir,
          port: this.port,
          database: this.database,
          persistent: true,
        });
        return;
      } catch (error) {
        if (attempt === 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }

  async remove(): Promise<void> {
    await this.stop();
    removeEmbeddedCluster(this.dir);
  }
}
