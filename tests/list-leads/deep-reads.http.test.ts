import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { assertContract } from "../helpers/openapi";
import { insertPerson, insertSource } from "../helpers/read-fixtures";
import { startServer, type RunningServer } from "../helpers/server";
import { READ_WAIT_MS } from "@/lib/db/read-budget";
import { validLead } from "../helpers/lead";

/**
 * Reads must not starve lead creation. The production server over HTTP, with 300,000 leads: twelve readers
 * loop for 30 s on GET /api/leads at the largest offset the spec allows and at a real offset in the middle, as
 * fast as they are answered, while one writer POSTs a lead every 200 ms. Every POST must be created; a read may be
 * answered or refused as documented (503 READS_BUSY with Retry-After), never fail.
 */
const LEADS = 300_000;
const READERS = 12;
const SECONDS = 30;
const POST_EVERY_MS = 200;

let db: TestDatabase;
let server: RunningServer;
let person: string;

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  const sources = [await insertSource(db.sql, "Deep Read Source A"), await insertSource(db.sql, "Deep Read Source B")];
  person = await insertPerson(db.sql, "Deep Read Person");
  // One in ten records is a person's, which listing walks past like a host's history. Written 1,000 per statement
  // over the pool's connections: the count trigger updates the same count rows once per record, and within one
  // statement those updates pile up row versions that each later one walks.
  const batches = Array.from({ length: LEADS / 1000 }, (_, b) => b * 1000);
  await Promise.all(
    [0, 1, 2, 3].map(async (lane) => {
      for (const from of batches.filter((_, b) => b % 4 === lane)) {
        await db.sql.query(
          `INSERT INTO referrals (referrer_customer_id, lead_name, status)
           SELECT CASE WHEN g % 10 = 0 THEN $3 WHEN g % 2 = 0 THEN $1 ELSE $2 END, 'Deep ' || g, 'Pending'
           FROM generate_series($4::int, $4::int + 999) g`,
          [sources[0], sources[1], person, from],
        );
      }
    }),
  );
  await db.sql.query("VACUUM (ANALYZE) referrals, customers");
  server = await startServer(db.url);
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await db?.sql.end();
});

const headers = { authorization: `Bearer ${TEST_KEY}` };

interface Answer {
  status: number;
  code?: string;
  retryAfter: string | null;
}

/** Sends one request and checks its answer against the document; returns what the tests count. */
async function send(method: "GET" | "POST", pathAndQuery: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${server.baseUrl}${pathAndQuery}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  assertContract(method, pathAndQuery, { status: response.status, headers: response.headers, body: parsed });
  return { status: response.status, code: parsed?.code, retryAfter: response.headers.get("retry-after") };
}

describe("deep reads beside lead creation", () => {
  it(
    `creates every lead POSTed every ${POST_EVERY_MS} ms while ${READERS} readers loop on deep and past-the-end offsets for ${SECONDS} s`,
    { timeout: (SECONDS + 60) * 1000 },
    async () => {
      const until = Date.now() + SECONDS * 1000;
      const reads: Record<string, Answer[]> = { "past the end": [], middle: [] };
      const readers = Array.from({ length: READERS }, async (_, i) => {
        const [kind, offset] = i % 2 === 0 ? ["past the end", 2147483647] : ["middle", Math.floor((LEADS * 0.9) / 2)];
        while (Date.now() < until) reads[kind].push(await send("GET", `/api/leads?limit=100&offset=${offset}`));
      });
      const posts: Promise<Answer>[] = [];
      while (Date.now() < until) {
        posts.push(
          send("POST", "/api/leads", validLead({ leadName: `Writer ${posts.length}`, referrer: "Deep Read Source A" })),
        );
        await new Promise((resolve) => setTimeout(resolve, POST_EVERY_MS));
      }
      await Promise.all(readers);
      const created = await Promise.all(posts);

      expect(created.filter((answer) => answer.status !== 201)).toEqual([]);
      // One every 200 ms, give or take the test's own timers on a busy machine.
      expect(created.length).toBeGreaterThanOrEqual((SECONDS * 1000) / POST_EVERY_MS / 2);
      for (const [kind, answers] of Object.entries(reads)) {
        const refused = answers.filter((a) => a.status !== 200);
        expect(
          refused.filter((a) => !(a.status === 503 && a.code === "READS_BUSY" && a.retryAfter === "1")),
          kind,
        ).toEqual([]);
        expect(answers.length - refused.length, `${kind}: answered reads`).toBeGreaterThan(0);
      }
      const { rows } = await db.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM referrals WHERE lead_name LIKE 'Writer %'`,
      );
      expect(rows[0].n).toBe(created.length);
    },
  );

  it(
    "keeps lead creation's connections while reads wait on a lock: the reads beyond their share are refused",
    { timeout: 60_000 },
    async () => {
      // A lock on the total of all source leads: every unfiltered GET /api/leads holds its connection until it goes.
      // A lead referred by a person never touches that total, so only the reads wait on the lock itself.
      const lock = await db.sql.connect();
      let reads: Promise<Answer>[] = [];
      try {
        await lock.query("BEGIN");
        await lock.query("LOCK TABLE lead_source_lead_counts IN ACCESS EXCLUSIVE MODE");
        reads = Array.from({ length: READERS }, () => send("GET", "/api/leads?limit=1"));
        await new Promise((resolve) => setTimeout(resolve, 500));
        for (let i = 0; i < 5; i++) {
          const answer = await send(
            "POST",
            "/api/leads",
            validLead({ leadName: `Locked ${i}`, referrer: { customerId: person } }),
          );
          expect(answer.status).toBe(201);
        }
        // Held past the longest a read waits for its turn, so the reads beyond the share are refused.
        await new Promise((resolve) => setTimeout(resolve, READ_WAIT_MS + 1000));
      } finally {
        await lock.query("COMMIT");
        lock.release();
      }
      const answers = await Promise.all(reads);
      expect(
        answers.filter(
          (a) => a.status !== 200 && !(a.status === 503 && a.code === "READS_BUSY" && a.retryAfter === "1"),
        ),
      ).toEqual([]);
      expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    },
  );

  it("never logged a pool timeout", () => {
    expect(server.output()).not.toContain("pool-timeout");
  });
});
