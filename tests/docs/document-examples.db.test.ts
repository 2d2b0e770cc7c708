import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFixture } from "@/scripts/seed/fixture";
import { seed } from "@/scripts/seed/load";
import { call } from "../helpers/api";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { openApiDocument } from "../helpers/openapi";

/**
 * Examples that work: after `npm run db:seed -- prisma/seed/demo.json`
 * every example request of the document (the request body examples and the curl
 * commands in the descriptions) succeeds as documented when copied, and the
 * agents, sources and persons the examples name exist.
 */

type Json = Record<string, any>;
const doc = openApiDocument();
const resolve = (node: Json): Json =>
  node.$ref
    ? node.$ref
        .slice(2)
        .split("/")
        .reduce((n: Json, key: string) => n[key], doc)
    : node;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await seed(db.url, await readFixture("prisma/seed/demo.json"));
});
afterAll(() => db.sql.end());

/** The curl commands of every operation's description: method, path and query, body. */
function curlExamples(): { method: string; url: string; body?: string }[] {
  return Object.values<Json>(doc.paths).flatMap((item) =>
    Object.values<Json>(item).flatMap((operation) =>
      [...(operation.description as string).matchAll(/```sh\n(curl[\s\S]*?)\n```/g)].map(([, command]) => ({
        method: /-X (\w+)/.exec(command)?.[1] ?? "GET",
        url: /"\$BASE_URL(\/[^"]+)"/.exec(command)![1],
        body: /-d '([^']+)'/.exec(command)?.[1],
      })),
    ),
  );
}

describe("the document's examples against the demo data", () => {
  it("runs every curl command of the descriptions with the documented success status", async () => {
    const commands = curlExamples();
    expect(commands.map((c) => `${c.method} ${c.url}`).sort()).toEqual(
      [
        "GET /api/health/live",
        "GET /api/health/ready",
        "GET /api/leads/agents",
        "GET /api/leads/sources",
        "GET /api/leads?referrer=Facebook%20Ads&limit=100&offset=0",
        "POST /api/leads",
      ].sort(),
    );
    for (const { method, url, body } of commands) {
      const res = await call(method, url, { body });
      const expected = Object.keys(doc.paths[new URL(url, "http://x").pathname][method.toLowerCase()].responses)[0];
      expect({ url, status: res.status }).toEqual({ url, status: Number(expected) });
    }
  });

  it("creates a lead from every request body example, as its response example shows", async () => {
    const operation = doc.paths["/api/leads"].post;
    const requests = Object.entries<Json>(operation.requestBody.content["application/json"].examples);
    const responses = Object.values<Json>(operation.responses[201].content["application/json"].examples).map(
      (e) => resolve(e).value.lead,
    );
    expect(requests.map(([name]) => name)).toEqual(["minimal", "assigned", "personReferrer"]);
    for (const [name, example] of requests) {
      const res = await call("POST", "/api/leads", { body: resolve(example).value });
      expect({ name, status: res.status }).toEqual({ name, status: 201 });
      const shown = responses.find((lead) => lead.leadName === res.body.lead.leadName);
      if (!shown) continue; // the "assigned" body has no response example of its own
      const { referralId, leadCustomerId, referrer, ...fields } = shown;
      expect(res.body.lead).toMatchObject({
        ...fields,
        referrer: referrer.type === "person" ? referrer : { name: referrer.name, type: "source" },
      });
    }
  });

  it("names agents and sources that exist, and its link lists the created lead under its referrer", async () => {
    const agents = (await call("GET", "/api/leads/agents")).body.agents.map((a: Json) => a.id);
    const sources = (await call("GET", "/api/leads/sources")).body.sources.map((s: Json) => s.name);
    const ok = (example: string) => resolve(doc.components.examples[example]).value;
    expect(ok("agents").agents).not.toHaveLength(0);
    for (const agent of ok("agents").agents) expect(agents).toContain(agent.id);
    expect(ok("sources").sources).not.toHaveLength(0);
    for (const source of ok("sources").sources) expect(sources).toContain(source.name);

    const created = (await call("POST", "/api/leads", { body: ok("minimalLead") })).body.lead;
    const link = doc.paths["/api/leads"].post.responses[201].links.listLeadsOfReferrer;
    const referrer = link.parameters.referrer
      .replace("$response.body#", "")
      .split("/")
      .slice(1)
      .reduce((n: Json, key: string) => n[key], { lead: created });
    const listed = await call("GET", `/api/leads?referrer=${encodeURIComponent(referrer)}`);
    expect(listed.status).toBe(200);
    expect(listed.body.leads.map((l: Json) => l.referralId)).toContain(created.referralId);
  });
});
