import { stat } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { embeddedUrl, passwordFile } from "@/lib/runtime/embedded-postgres.mjs";
import { listeningSockets } from "../helpers/process-tree";
import { asRoot, FIXED, dir, port, server, login, asNobody, setUpEmbeddedCluster } from "../helpers/embedded-cluster";

setUpEmbeddedCluster();

describe("the embedded PostgreSQL's logins", () => {
  it("refuses the superuser with the password postgres, and admits the URL built from the password file", async () => {
    expect(await login(`postgresql://postgres:${FIXED}@127.0.0.1:${port}/access`)).toBe("refused 28P01");
    expect(await login(embeddedUrl(dir, port, "access"))).toBe("postgres");
    expect(server.url).toBe(embeddedUrl(dir, port, "access"));
  });

  it("keeps the password in a file beside the data folder, mode 0600, owned by the user who started it", async () => {
    expect(passwordFile(dir)).toBe(`${dir}.password`);
    const file = await stat(passwordFile(dir));
    expect(file.mode & 0o777).toBe(0o600);
    expect(file.uid).toBe(process.getuid!());
    expect(readFileSync(passwordFile(dir), "utf8").trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("listens on loopback TCP only and has no Unix socket", () => {
    const sockets = listeningSockets(port);
    expect(sockets.length).toBeGreaterThan(0);
    // 127.0.0.1 and ::1 as the kernel prints them (little-endian words).
    expect(sockets.filter((s) => s.address !== "0100007F" && s.address !== "00000000000000000000000001000000")).toEqual(
      [],
    );
    const unixSockets = readFileSync("/proc/net/unix", "utf8").split("\n");
    expect(unixSockets.filter((line) => line.endsWith(`.s.PGSQL.${port}`))).toEqual([]);
  });

  it.runIf(asRoot)("admits no other OS user: nobody can neither read the password file nor log in", () => {
    const psql = ["psql", "-w", "-U", "postgres", "-d", "access", "-Atc", "SELECT 1"];
    const overTcp = asNobody([...psql, "-h", "127.0.0.1", "-p", String(port)], { PGPASSWORD: FIXED });
    expect(overTcp.output).toContain('password authentication failed for user "postgres"');
    expect(overTcp.status).not.toBe(0);
    // The binaries' built-in socket folder, and Debian's.
    for (const socketDir of ["/tmp", "/var/run/postgresql"]) {
      const overSocket = asNobody([...psql, "-h", socketDir, "-p", String(port)], { PGPASSWORD: FIXED });
      expect(overSocket.output).toContain("No such file or directory");
      expect(overSocket.status).not.toBe(0);
    }
    const read = asNobody(["cat", passwordFile(dir)]);
    expect(read.status).not.toBe(0);
    expect(read.output).toContain("Permission denied");
  });
});
