import pg from "pg";
import { describe, expect, it } from "vitest";
import { STATEMENT_TIMEOUT_MS } from "@/lib/db/connect";
import {
  db,
  server,
  type Answer,
  send,
  auth,
  jsonBody,
  lead,
  setUpOperationsServers,
} from "../helpers/operations-servers";

setUpOperationsServers();

describe("a host lock on referrals", () => {
  it("fails reads and writes alike at the statement timeout (reads used to fail after 5 s), logged as statement-timeout", async () => {
    const host = new pg.Client({ connectionString: db.url });
    await host.connect();
    let answers: Answer[];
    let waited: number;
    try {
      await host.query("BEGIN; LOCK TABLE referrals IN ACCESS EXCLUSIVE MODE");
      const started = Date.now();
      answers = await Promise.all([
        send(server.baseUrl, "GET", "/api/leads", { headers: { ...auth(), "x-request-id": "locked-read" } }),
        send(server.baseUrl, "POST", "/api/leads", {
          headers: { ...jsonBody(), "x-request-id": "locked-write" },
          body: lead(),
        }),
      ]);
      waited = Date.now() - started;
    } finally {
      await host.query("ROLLBACK");
      await host.end();
    }
    expect(answers.map((a) => a.status)).toEqual([500, 500]);
    expect(waited).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
    const failures = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request failed"'))
      .map((line) => JSON.parse(line));
    for (const requestId of ["locked-read", "locked-write"]) {
      expect(failures.filter((f) => f.requestId === requestId)).toEqual([
        expect.objectContaining({ requestId, kind: "statement-timeout", code: "57014" }),
      ]);
    }
  }, 60_000);
});
