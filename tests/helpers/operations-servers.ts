import { afterAll, beforeAll } from "vitest";
import { TEST_KEY } from "./api";
import { createTestDatabase, type TestDatabase } from "./db";
import { sendOnOwnSocket, type RawAnswer } from "./raw-http";
import { startServer, type RunningServer } from "./server";
import { validLead } from "./lead";

/**
 * What the tests of operating the service (docs/operating.md) over HTTP against the production server share: request
 * ids on every answer, the access log read from the server's output, key rotation, closed connections after 401 and
 * 413, and pool-wait failures logged with their kind.
 */
export const PREVIOUS_KEY = "previous-key-9876543210-9876543210-98765";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ACCESS_FIELDS = [
  "time",
  "level",
  "msg",
  "requestId",
  "method",
  "path",
  "status",
  "code",
  "durationMs",
  "key",
];

export let db: TestDatabase;
export let server: RunningServer;
/** One pooled connection and no access log: for pool waits. */
export let narrow: RunningServer;
export const personal = new Set<string>();

export interface Answer extends Omit<RawAnswer, "text"> {
  body: any;
}

/** One request on its own socket, with the raw response headers (fetch hides Connection) and the body parsed. */
export async function send(
  baseUrl: string,
  method: string,
  path: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const { text, ...answer } = await sendOnOwnSocket(new URL(path, baseUrl), method, headers, body);
  return { ...answer, body: text ? JSON.parse(text) : undefined };
}

export const auth = (key = TEST_KEY) => ({ authorization: `Bearer ${key}` });
export const jsonBody = (key = TEST_KEY) => ({ ...auth(key), "content-type": "application/json" });

export let counter = 0;
export function lead(): string {
  counter++;
  const value = validLead({
    leadName: `Operable Lead ${counter} Wirawati`,
    leadMobileNumber: `013-555 ${String(1000 + counter)}`,
    referrer: "Operations Fair",
  });
  personal.add(value.leadName);
  return JSON.stringify(value);
}

/** The access log lines the server printed for a request id. */
export function accessLines(output: string, requestId: string): Record<string, unknown>[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes(`"requestId":"${requestId}"`))
    .map((line) => JSON.parse(line))
    .filter((line) => line.msg === "request");
}

/** Starts the file's database and its two production servers before its tests, and stops them after. */
export function setUpOperationsServers() {
  beforeAll(async () => {
    db = await createTestDatabase({ use: false });
    [server, narrow] = await Promise.all([
      startServer(db.url, { LEADS_API_KEY_PREVIOUS: PREVIOUS_KEY }),
      startServer(db.url, { DATABASE_POOL_SIZE: "1", LEADS_ACCESS_LOG: "off" }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([server?.stop(), narrow?.stop()]);
    await db.sql.end();
  });
}
