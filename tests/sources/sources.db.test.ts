import { afterAll, beforeAll, describe, expect, it } from "vitest";
import defaultSources from "@/lib/leads/sources/default-sources.json";
import { call, post } from "../helpers/api";
import { expectError } from "../helpers/expect-api";
import { notConfigured } from "../helpers/key";
import { createTestDatabase, rowCounts, type TestDatabase } from "../helpers/db";
import { insertPerson, keysOf } from "../helpers/read-fixtures";
import { validLead } from "../helpers/lead";

/** Spec "GET /api/leads/sources" (aliases /api/leads/ads, /api/sources) and decisions 7 and 8. */

const PATHS = ["/api/leads/sources", "/api/leads/ads", "/api/sources"];
type Source = { id: string; name: string; type: string };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.sql.end());

async function listSources(path = "/api/leads/sources"): Promise<{ sources: Source[]; ads: Source[] }> {
  const res = await call("GET", path);
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return res.body;
}

function expectWellFormed(body: { sources: Source[]; ads: Source[] }) {
  expect(keysOf(body)).toEqual(["ads", "sources"]);
  expect(body.sources).not.toHaveLength(0);
  for (const source of [...body.sources, ...body.ads]) {
    expect(keysOf(source)).toEqual(["id", "name", "type"]);
    expect(source.id).toMatch(/^src_/);
    expect(typeof source.name).toBe("string");
    expect(["ads", "other"]).toContain(source.type);
  }
  // ads is the subset of sources whose type is ads, not a further page.
  expect(body.ads).toEqual(body.sources.filter((s) => s.type === "ads"));
  expect(new Set(body.sources.map((s) => s.id)).size).toBe(body.sources.length);
}

describe("GET /api/leads/sources", () => {
  let before: Source[];

  it("lists the configured default sources, with their configured type, before they have any lead", async () => {
    expect((await rowCounts(db.sql)).referrals).toBe(0);
    const body = await listSources();
    expectWellFormed(body);
    before = body.sources;
    expect(body.sources.map(({ name, type }) => ({ name, type }))).toEqual(expect.arrayContaining(defaultSources));
    expect(body.sources).toHaveLength(defaultSources.length);
    expect(body.ads.map((s) => s.name).sort()).toEqual(
      defaultSources
        .filter((s) => s.type === "ads")
        .map((s) => s.name)
        .sort(),
    );
  });

  it("keeps a configured source's src_ id after its first lead, which is attributed to that id", async () => {
    const facebook = before.find((s) => s.name === "Facebook Ads")!;
    const created = await post(validLead({ leadName: "Siti", referrer: "  facebook   ADS " }));
    expect(created.status, created.text).toBe(201);
    expect(created.body.lead.referrer).toEqual({ customerId: facebook.id, name: "Facebook Ads", type: "source" });

    const byId = await post(validLead({ leadName: "Ahmad", referrer: facebook.id }));
    expect(byId.status, byId.text).toBe(201);
    expect(byId.body.lead.referrer.customerId).toBe(facebook.id);

    const after = await listSources();
    expectWellFormed(after);
    expect(after.sources).toEqual(before);
  });

  it("lists a source created by POST, with type other and the id the POST returned", async () => {
    const created = await post(validLead({ leadName: "Mei Ling", referrer: "Mall  Roadshow KL" }));
    expect(created.status, created.text).toBe(201);
    const { customerId } = created.body.lead.referrer;
    expect(customerId).toMatch(/^src_/);

    const body = await listSources();
    expectWellFormed(body);
    expect(body.sources).toContainEqual({ id: customerId, name: "Mall Roadshow KL", type: "other" });
    expect(body.ads.map((s) => s.id)).not.toContain(customerId);
    expect(body.sources).toHaveLength(before.length + 1);
  });

  it("lists source accounts only, never a person customer, and no person referral adds a source", async () => {
    const personId = await insertPerson(db.sql, "Tan Ah Kow");
    const created = await post({
      leadName: "Kumar",
      leadMobileNumber: "0131112222",
      referrer: { customerId: personId },
    });
    expect(created.status, created.text).toBe(201);
    const body = await listSources();
    expect(body.sources.map((s) => s.id)).not.toContain(personId);
    expect(body.sources.map((s) => s.name)).not.toContain("Tan Ah Kow");
    expect(body.sources).toHaveLength(before.length + 1);
  });

  it("lists a host source account that has no leads, with its stored type", async () => {
    const { rows } = await db.sql.query<{ id: string }>(
      `INSERT INTO customers (id, kind, name, source_type) VALUES ('src_host_instagram', 'source', 'Instagram Ads', 'ads')
       RETURNING id`,
    );
    await db.sql.query(`INSERT INTO lead_source_names (key, customer_id) VALUES ('instagram ads', $1)`, [rows[0].id]);
    const body = await listSources();
    expectWellFormed(body);
    expect(body.sources).toContainEqual({ id: "src_host_instagram", name: "Instagram Ads", type: "ads" });
    expect(body.ads).toContainEqual({ id: "src_host_instagram", name: "Instagram Ads", type: "ads" });
  });

  it("answers identically on the aliases /api/leads/ads and /api/sources", async () => {
    const [main, ...aliases] = await Promise.all(PATHS.map((path) => call("GET", path)));
    for (const alias of aliases) {
      expect(alias.status).toBe(200);
      expect(alias.headers.get("cache-control")).toBe("no-store");
      expect(alias.headers.get("content-type")).toBe(main.headers.get("content-type"));
      expect(alias.body).toEqual(main.body);
    }
  });

  it("creates no row: listing, on every path, leaves every table's row count unchanged", async () => {
    const counts = await rowCounts(db.sql);
    for (let i = 0; i < 3; i++) for (const path of PATHS) await listSources(path);
    expect(await rowCounts(db.sql)).toEqual(counts);
  });
});

describe("GET /api/leads/sources with If-None-Match", () => {
  /** The list's ETag now, from a 200 on the main path. */
  async function currentTag(): Promise<string> {
    const res = await call("GET", "/api/leads/sources");
    expect(res.status).toBe(200);
    const tag = res.headers.get("etag");
    expect(tag).toMatch(/^"\d+"$/);
    return tag!;
  }

  async function conditional(tag: string, path = "/api/leads/sources") {
    return call("GET", path, { headers: { "if-none-match": tag } });
  }

  it("answers 304 without a body, with the same ETag and no-store, on every path, while the list is unchanged", async () => {
    const tag = await currentTag();
    for (const path of PATHS) {
      for (const sent of [tag, `W/${tag}`, `"0", ${tag}`, "*"]) {
        const res = await conditional(sent, path);
        expect({ path, sent, status: res.status, text: res.text }).toEqual({ path, sent, status: 304, text: "" });
        expect(res.headers.get("etag")).toBe(tag);
        expect(res.headers.get("cache-control")).toBe("no-store");
        expect(res.headers.get("x-request-id")).toBeTruthy();
      }
    }
  });

  it("answers the whole list with a new ETag after every change to it, and keeps the ETag through a lead or a person", async () => {
    let tag = await currentTag();
    const expectChanged = async (change: string) => {
      const res = await conditional(tag);
      expect({ change, status: res.status }).toEqual({ change, status: 200 });
      expect(res.body.sources.length).toBeGreaterThan(0);
      expect(res.headers.get("etag"), change).not.toBe(tag);
      tag = res.headers.get("etag")!;
      expect((await conditional(tag)).status, change).toBe(304);
    };
    expect((await post(validLead({ leadName: "Etag Lead", referrer: "Etag Source" }))).status).toBe(201);
    await expectChanged("a new source by POST");
    await db.sql.query(`UPDATE customers SET name = 'Etag Source Renamed' WHERE name = 'Etag Source'`);
    await expectChanged("a host rename");
    await db.sql.query(`UPDATE customers SET source_type = 'ads' WHERE name = 'Etag Source Renamed'`);
    await expectChanged("a host type change");
    await db.sql.query(
      `INSERT INTO customers (id, kind, name, source_type) VALUES ('src_etag_host', 'source', 'Etag Host', 'other')`,
    );
    await expectChanged("a host source");
    await db.sql.query(`DELETE FROM customers WHERE id = 'src_etag_host'`);
    await expectChanged("a host delete");

    expect((await post(validLead({ leadName: "Etag Lead 2", referrer: "Etag Source Renamed" }))).status).toBe(201);
    await insertPerson(db.sql, "Etag Person");
    await db.sql.query(`UPDATE customers SET name = 'Etag Person 2' WHERE name = 'Etag Person'`);
    expect((await conditional(tag)).status).toBe(304);
  });

  it("answers the whole list to a tag it never gave", async () => {
    for (const sent of ['"999999999"', "garbage", '""']) expect((await conditional(sent)).status).toBe(200);
  });
});

describe("GET /api/leads/sources without the right key", () => {
  it.each(PATHS)("%s answers 401 UNAUTHORIZED for a wrong, missing or non-bearer key", async (path) => {
    const counts = await rowCounts(db.sql);
    for (const options of [{ key: "wrong-key" }, { key: null }, { headers: { authorization: "Basic dGVzdC1rZXk=" } }]) {
      const res = await call("GET", path, options);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String), code: "UNAUTHORIZED", requestId: expect.any(String) });
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    expect(await rowCounts(db.sql)).toEqual(counts);
  });

  it.each(PATHS)("%s answers 503 API_NOT_CONFIGURED when the server has no key", async (path) => {
    expectError(await notConfigured(() => call("GET", path)), 503, "API_NOT_CONFIGURED");
  });
});
