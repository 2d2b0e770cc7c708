import pg from "pg";
import { describe, expect, it } from "vitest";
import { POOL_WAIT_MS } from "@/lib/db/connect";
import { READ_WAIT_MS } from "@/lib/db/read-budget";
import {
  db,
  narrow,
  type Answer,
  send,
  auth,
  jsonBody,
  lead,
  setUpOperationsServers,
} from "../helpers/operations-servers";

setUpOperationsServers();

describe("pool waits", () => {
  it("fail a write after the pool's wait (logged with its kind and request id) and a read after the read connections' wait", async () => {
    const host = new pg.Client({ connectionString: db.url });
    await host.connect();
    try {
      // The host locks referrals: the listing holds the narrow server's only connection, and its one read connection.
      await host.query("BEGIN; LOCK TABLE referrals IN ACCESS EXCLUSIVE MODE");
      const listing = send(narrow.baseUrl, "GET", "/api/leads", {
        headers: { ...auth(), "x-request-id": "holds-the-pool" },
      });
      const waiting = async () =>
        (
          await db.sql.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          )
        ).rows[0].n;
      while ((await waiting()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      const timed = async (answer: Promise<Answer>) => ({ answer: await answer, waited: Date.now() - started });
      const [write, read] = await Promise.all([
        timed(
          send(narrow.baseUrl, "POST", "/api/leads", {
            headers: { ...jsonBody(), "x-request-id": "waits-write" },
            body: lead(),
          }),
        ),
        timed(
          send(narrow.baseUrl, "GET", "/api/leads/sources", { headers: { ...auth(), "x-request-id": "waits-read" } }),
        ),
      ]);
      expect([write.answer.status, write.answer.body.code]).toEqual([500, "INTERNAL_ERROR"]);
      expect(write.waited).toBeGreaterThanOrEqual(POOL_WAIT_MS - 100);
      expect(write.waited).toBeLessThan(POOL_WAIT_MS + 3_000);
      expect([read.answer.status, read.answer.body.code, read.answer.headers["retry-after"]]).toEqual([
        503,
        "READS_BUSY",
        "1",
      ]);
      expect(read.waited).toBeGreaterThanOrEqual(READ_WAIT_MS - 100);
      expect(read.waited).toBeLessThan(READ_WAIT_MS + 3_000);
      await host.query("ROLLBACK");
      expect((await listing).status).toBe(200);
    } finally {
      await host.end();
    }
    const failures = narrow
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request failed"'))
      .map((line) => JSON.parse(line));
    expect(failures.filter((f) => f.requestId === "waits-write")).toEqual([
      expect.objectContaining({ level: "error", requestId: "waits-write", kind: "pool-timeout" }),
    ]);
  }, 60_000);
});
