import { describe, expect, it } from "vitest";
import { TEST_KEY } from "../helpers/api";
import { validLead } from "../helpers/lead";
import { sendBytes, sendOnOwnSocket, type RawAnswer } from "../helpers/raw-http";
import { serverForThisFile } from "../helpers/server";

/**
 * A path of the module with a trailing slash, or spelled with doubled slashes or backslashes, against the production
 * server: answered as the path spelled plainly, with the module's headers, never redirected by Next without them
 * (docs/decisions.md, "A trailing slash is the same path").
 */
const running = serverForThisFile();
const AUTH = { authorization: `Bearer ${TEST_KEY}` };

function send(method: string, path: string, headers: Record<string, string> = AUTH, body?: string): Promise<RawAnswer> {
  return sendOnOwnSocket(new URL(path, running.server.baseUrl), method, headers, body);
}

/** What two answers to the same resource share, the request id (the API's answers have one) and the date aside. */
function comparable(answer: RawAnswer) {
  const { "x-request-id": id, date: _date, ...headers } = answer.headers;
  return {
    status: answer.status,
    headers,
    id: typeof id,
    text: id ? answer.text.replaceAll(String(id), "<id>") : answer.text,
  };
}

const PLAIN = [
  "/api/leads",
  "/api/leads/sources",
  "/api/leads/agents",
  "/api/health/live",
  "/openapi.json",
  "/docs",
  "/swagger-ui/swagger-ui.css",
];

describe("a trailing slash on the module's paths", () => {
  it.each(PLAIN)("%s with a trailing slash answers as without it, with the module's headers", async (path) => {
    const plain = comparable(await send("GET", path));
    const slashed = comparable(await send("GET", `${path}/`));
    if (path === "/docs") {
      // A fresh nonce per answer.
      for (const answer of [plain, slashed]) delete answer.headers["content-security-policy"];
      expect(slashed.text.replace(/nonce="[^"]+"/g, "")).toBe(plain.text.replace(/nonce="[^"]+"/g, ""));
      expect(slashed.status).toBe(200);
    } else {
      expect(slashed).toEqual(plain);
    }
    expect(slashed.headers["x-content-type-options"]).toBe("nosniff");
    expect(slashed.headers.location).toBeUndefined();
  });

  it("answers an API path's trailing slash with no-store and a JSON body, errors included", async () => {
    for (const [method, path, headers, status] of [
      ["GET", "/api/leads/sources/", AUTH, 200],
      ["GET", "/api/leads/", {}, 401],
      ["DELETE", "/api/leads/", AUTH, 405],
      ["GET", "/api/nowhere/", AUTH, 404],
    ] as const) {
      const answer = await send(method, path, headers);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status });
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
      expect(JSON.parse(answer.text)).toBeTypeOf("object");
    }
  });

  it("creates a lead by POST /api/leads/ exactly as by POST /api/leads", async () => {
    const lead = validLead({ leadName: "Trailing Slash Lead", referrer: "Slash Expo" });
    const answer = await send(
      "POST",
      "/api/leads/",
      { ...AUTH, "content-type": "application/json" },
      JSON.stringify(lead),
    );
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    const { rows } = await running.db.sql.query("SELECT count(*)::int AS n FROM referrals WHERE lead_name = $1", [
      lead.leadName,
    ]);
    expect(rows[0].n).toBe(1);
  });
});

describe("doubled slashes and backslashes in the module's paths", () => {
  it.each(["/api/leads//", "//api/leads", "/api//leads/sources", "/api\\leads", "/docs//", "/openapi.json//"])(
    "%s is answered as its plain spelling, never a redirect",
    async (path) => {
      const raw = await sendBytes(
        new URL(running.server.baseUrl),
        `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nConnection: close\r\n\r\n`,
      );
      expect(raw.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
      if (path.includes("/api")) expect(raw).toMatch(/^x-request-id: /im);
      expect(raw).toMatch(/^x-content-type-options: nosniff/im);
      expect(raw).not.toMatch(/^location:/im);
    },
  );
});
