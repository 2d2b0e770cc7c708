import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import methodGuard from "@/lib/api/method-guard.json";
import { freePort, startProcessGroup } from "@/scripts/process-group";
import { TEST_KEY } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { validLead } from "../helpers/lead";
import { sendOnOwnSocket } from "../helpers/raw-http";
import { startServer } from "../helpers/server";

/**
 * The header by which the preload's method guard tells the routes the method a client sent
 * (lib/preload/method-guard.mjs), sent by a client itself: ignored, on the production server and on a host's own
 * `next start` without the preload. A POST that claims to be a GET is logged and counted as the POST it is, and a
 * method the client names in it is never echoed.
 */
const HEADER = methodGuard.originalMethodHeader;
const NEXT = fileURLToPath(import.meta.resolve("next/dist/bin/next"));

interface Served {
  baseUrl: string;
  metricsUrl: string;
  output(): string;
  stop(): Promise<void>;
}

let db: TestDatabase;
const servers: Record<string, Served> = {};

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  const [metricsPort, ownMetricsPort, ownPort] = [await freePort(), await freePort(), await freePort()];
  const launched = await startServer(db.url, { LEADS_METRICS_PORT: String(metricsPort) });
  servers["with the preload"] = { ...launched, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
  const baseUrl = `http://127.0.0.1:${ownPort}`;
  const own = await startProcessGroup(
    process.execPath,
    [NEXT, "start", "-p", String(ownPort)],
    {
      DATABASE_URL: db.url,
      LEADS_API_KEY: TEST_KEY,
      LEADS_ACCESS_LOG: "on",
      LEADS_METRICS_PORT: String(ownMetricsPort),
    },
    `${baseUrl}/api/health/live`,
  );
  servers["without the preload"] = { ...own, baseUrl, metricsUrl: `http://127.0.0.1:${ownMetricsPort}/metrics` };
}, 180_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.stop()));
  await db?.sql.end();
});

function accessLine(output: string, requestId: string): Record<string, unknown> | undefined {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes(`"requestId":"${requestId}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line.msg === "request");
}

/** The request counts of /api/leads in the Prometheus text, by method and status. */
async function leadRequestCounts(metricsUrl: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const line of (await (await fetch(metricsUrl)).text()).split("\n")) {
    if (!line.startsWith("http_server_request_duration_seconds_count{") || !line.includes('http_route="/api/leads"'))
      continue;
    const method = /http_request_method="([^"]+)"/.exec(line)![1];
    const status = /http_response_status_code="([^"]+)"/.exec(line)![1];
    counts[`${method} ${status}`] = (counts[`${method} ${status}`] ?? 0) + Number(line.split(" ").at(-1));
  }
  return counts;
}

describe.each(["with the preload", "without the preload"])("a client's own method header, %s", (name) => {
  it("is ignored: a POST that names GET in it is logged and counted as a POST", async () => {
    const server = servers[name];
    const before = await leadRequestCounts(server.metricsUrl);
    const requestId = `forged-method-${name.replace(/ /g, "-")}`;
    const lead = validLead({ leadName: `Forged Method ${name}`, referrer: "Header Expo" });
    const answer = await sendOnOwnSocket(
      new URL("/api/leads", server.baseUrl),
      "POST",
      {
        authorization: `Bearer ${TEST_KEY}`,
        "content-type": "application/json",
        "x-request-id": requestId,
        [HEADER]: "GET",
      },
      JSON.stringify(lead),
    );
    expect(answer.status, answer.text).toBe(201);
    for (const deadline = Date.now() + 5_000; !accessLine(server.output(), requestId) && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(accessLine(server.output(), requestId)).toMatchObject({ method: "POST", path: "/api/leads", status: 201 });
    const after = await leadRequestCounts(server.metricsUrl);
    expect((after["POST 201"] ?? 0) - (before["POST 201"] ?? 0)).toBe(1);
    expect(after["GET 201"]).toBeUndefined();
  });

  it("is never echoed: DELETE naming FOO in it is refused as the DELETE it is", async () => {
    const answer = await sendOnOwnSocket(new URL("/api/leads", servers[name].baseUrl), "DELETE", {
      authorization: `Bearer ${TEST_KEY}`,
      [HEADER]: "FOO",
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe("GET, POST");
    expect(JSON.parse(answer.text)).toMatchObject({ code: "METHOD_NOT_ALLOWED" });
    expect(answer.text).not.toContain("FOO");
    expect(answer.text).toContain("DELETE is not supported here");
  });
});
