// Several server processes as a host runs them: PgBouncer in transaction mode before PostgreSQL, HAProxy before the
// servers, with the settings docs/host-guide.md ("Connection poolers") names; Debian's binaries (ensure-pooler.sh).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { STATEMENT_TIMEOUT_MS } from "@/lib/db/connect";
import { freePort, startProcessGroup, type ProcessGroup } from "@/scripts/process-group";

/** Server connections per database and user: small, so that three processes' pools (30 clients) share 8. */
export const POOLER_POOL_SIZE = 8;

/** PgBouncer's version as `pgbouncer --version` prints it, e.g. [1, 18, 0]. */
export function pgbouncerVersion(): number[] {
  const out = execFileSync("pgbouncer", ["--version"], { encoding: "utf8" });
  const match = /PgBouncer (\d+)\.(\d+)\.(\d+)/.exec(out);
  if (!match) throw new Error("pgbouncer --version printed no version");
  return match.slice(1).map(Number);
}

/** Whether this PgBouncer can track protocol-level named prepared statements in transaction mode (1.21 and later). */
export function pgbouncerTracksPreparedStatements(): boolean {
  const [major, minor] = pgbouncerVersion();
  return major > 1 || (major === 1 && minor >= 21);
}

export interface PgBouncer {
  port: number;
  /** `upstream` (a postgresql:// URL) with its host and port replaced by PgBouncer's. */
  url(upstream: string): string;
  group: ProcessGroup;
  /** kill -9, as a crash would, and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and settings (after kill). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of the PostgreSQL of `upstream` (every database
 * on it, as the URL's user and password). `maxPreparedStatements` only where the version
 * supports it (pgbouncerTracksPreparedStatements).
 */
export async function startPgBouncer(upstream: string, { maxPreparedStatements = 0 } = {}): Promise<PgBouncer> {
  const server = new URL(upstream);
  const dir = mkdtempSync(path.join(tmpdir(), "lead-intake-pgbouncer-"));
  const port = await freePort();
  writeFileSync(
    path.join(dir, "userlist.txt"),
    `"${decodeURIComponent(server.username)}" "${decodeURIComponent(server.password)}"\n`,
  );
  const settings = [
    "[databases]",
    // The service's statement timeout on every server connection: PgBouncer does not pass the
    // pg driver's statement_timeout startup parameter on (it is ignored below), so it is set here.
    `* = host=${server.hostname} port=${server.port} connect_query='SET statement_timeout = ${STATEMENT_TIMEOUT_MS}'`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = plain",
    `auth_file = ${path.join(dir, "userlist.txt")}`,
    "pool_mode = transaction",
    `default_pool_size = ${POOLER_POOL_SIZE}`,
    "max_client_conn = 1000",
    // A line per client connection: the benchmark opens thousands.
    "log_connections = 0",
    "log_disconnections = 0",
    "ignore_startup_parameters = statement_timeout",
    ...(maxPreparedStatements ? [`max_prepared_statements = ${maxPreparedStatements}`] : []),
    // PgBouncer refuses to run as root; it changes to this user after start.
    ...(userInfo().uid === 0 ? ["user = postgres"] : []),
  ];
  const config = path.join(dir, "pgbouncer.ini");
  writeFileSync(config, `${settings.join("\n")}\n`);
  const start = () => startProcessGroup("pgbouncer", [config], {}, `tcp://127.0.0.1:${port}`);
  const pooler: PgBouncer = {
    port,
    url(target) {
      const url = new URL(target);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    group: await start(),
    async kill() {
      process.kill(pooler.group.pid, "SIGKILL");
      await pooler.group.exited;
    },
    async restart() {
      pooler.group = await start();
    },
    async stop() {
      await pooler.group.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return pooler;
}

export interface LoadBalancer {
  url: string;
  group: ProcessGroup;
  stop(): Promise<void>;
}

/**
 * HAProxy in front of `backends` (base URLs), round robin, each taken out while its
 * readiness check fails. `timeout http-request` bounds a slow request at the proxy, for
 * servers started without the preload's request timeouts (docs/host-guide.md, "Deployment shapes").
 */
export async function startLoadBalancer(
  backends: string[],
  { httpRequestTimeoutMs = 30_000 } = {},
): Promise<LoadBalancer> {
  const dir = mkdtempSync(path.join(tmpdir(), "lead-intake-haproxy-"));
  const port = await freePort();
  const settings = [
    "global",
    "  maxconn 4096",
    "defaults",
    "  mode http",
    "  timeout connect 5s",
    "  timeout client 60s",
    "  timeout server 60s",
    `  timeout http-request ${httpRequestTimeoutMs}ms`,
    // The body too, not only the headers, must arrive within that timeout (bodies here are at most 1 MiB).
    "  option http-buffer-request",
    // A connection refused by a killed server is tried on another (nothing was sent yet).
    "  retries 3",
    "  option redispatch",
    "frontend leads",
    `  bind 127.0.0.1:${port}`,
    "  default_backend servers",
    "backend servers",
    "  balance roundrobin",
    // Each client connection keeps its own server connection: a server's idle keep-alive
    // timeout (Next's 5 s) cannot close one that another client's request is about to reuse.
    "  http-reuse never",
    "  option httpchk GET /api/health/ready",
    ...backends.map((b, i) => `  server s${i} ${new URL(b).host} check inter 1s fall 2 rise 1`),
  ];
  const config = path.join(dir, "haproxy.cfg");
  writeFileSync(config, `${settings.join("\n")}\n`);
  const group = await startProcessGroup("haproxy", ["-f", config, "-db"], {}, `tcp://127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}`,
    group,
    async stop() {
      await group.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
