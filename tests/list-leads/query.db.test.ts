import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { rowCounts } from "../helpers/db";
import { keysOf, listLeads } from "../helpers/read-fixtures";
import { db, arrangeListedLeads } from "../helpers/listed-leads";

arrangeListedLeads();

describe("query validation", () => {
  const invalid: [string, string[]][] = [
    ["?foo=1", ["foo"]],
    ["?introducer=Facebook%20Ads", ["introducer"]],
    ["?source=Facebook%20Ads", ["source"]],
    ["?Limit=5", ["Limit"]],
    ["?page=2", ["page"]],
    ["?referrer[]=Facebook%20Ads", ["referrer[]"]],
    ["?referrer[name]=Facebook%20Ads", ["referrer[name]"]],
    ["?toString=1", ["toString"]],
    ["?constructor=1", ["constructor"]],
    ["?__proto__=1", ["__proto__"]],
    ["?limit=5&limit=5", ["limit"]],
    ["?offset=0&offset=10", ["offset"]],
    ["?referrer=Facebook%20Ads&referrer=Google%20Ads", ["referrer"]],
    ["?limit=10&limit=", ["limit"]],
    ["?limit=", ["limit"]],
    ["?limit", ["limit"]],
    ["?offset=", ["offset"]],
    ["?referrer=", ["referrer"]],
    ["?referrer=%20%20%20", ["referrer"]],
    ["?referrer=a", ["referrer"]],
    ["?referrer=%20a%20", ["referrer"]],
    [`?referrer=${"x".repeat(121)}`, ["referrer"]],
    ["?limit=-1", ["limit"]],
    ["?offset=-1", ["offset"]],
    ["?offset=-0", ["offset"]],
    ["?limit=1.5", ["limit"]],
    ["?limit=10.0", ["limit"]],
    ["?offset=2.", ["offset"]],
    ["?offset=.5", ["offset"]],
    ["?limit=%2B5", ["limit"]],
    ["?limit=+5", ["limit"]],
    ["?offset=%2B0", ["offset"]],
    ["?limit=1e2", ["limit"]],
    ["?offset=1E2", ["offset"]],
    ["?limit=0x10", ["limit"]],
    ["?offset=0b1", ["offset"]],
    ["?limit=%205", ["limit"]],
    ["?limit=5%20", ["limit"]],
    ["?limit=5%200", ["limit"]],
    ["?limit=five", ["limit"]],
    ["?limit=Infinity", ["limit"]],
    ["?limit=NaN", ["limit"]],
    ["?limit=%EF%BC%95", ["limit"]],
    ["?limit=5,6", ["limit"]],
    ["?limit=0", ["limit"]],
    ["?limit=00", ["limit"]],
    ["?limit=501", ["limit"]],
    ["?limit=99999999999999999999999", ["limit"]],
    ["?offset=2147483648", ["offset"]],
    ["?offset=99999999999999999999999", ["offset"]],
    ["?limit=0&offset=-1&referrer=a", ["limit", "offset", "referrer"]],
    ["?limit=0&foo=1", ["foo", "limit"]],
  ];

  it.each(invalid)("%s: 400 INVALID_INPUT with issues naming %j", async (query, paths) => {
    const counts = await rowCounts(db.sql);
    const res = await call("GET", `/api/leads${query}`);
    expect(res.status, res.text).toBe(400);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(keysOf(res.body)).toEqual(["code", "error", "issues", "requestId"]);
    expect(res.body.code).toBe("INVALID_INPUT");
    expect(typeof res.body.error).toBe("string");
    expect(res.body.issues).not.toHaveLength(0);
    for (const issue of res.body.issues) {
      expect(keysOf(issue)).toEqual(["message", "path"]);
      expect(typeof issue.message).toBe("string");
      expect(issue.message).not.toBe("");
    }
    expect([...new Set(res.body.issues.map((i: { path: string }) => i.path))].sort()).toEqual(paths);
    expect(await rowCounts(db.sql)).toEqual(counts);
  });

  it.each(["toString", "constructor", "__proto__", "hasOwnProperty"])(
    "?%s=1 is an unknown parameter, not one given twice",
    async (name) => {
      const res = await call("GET", `/api/leads?${name}=1`);
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([{ path: name, message: expect.not.stringMatching(/more than once/) }]);
      const repeated = await call("GET", `/api/leads?${name}=1&${name}=2`);
      expect(repeated.body.issues).toEqual([{ path: name, message: expect.stringMatching(/more than once/) }]);
    },
  );

  it.each([
    ["?limit=1", 1, 0],
    ["?limit=500", 500, 0],
    ["?limit=005", 5, 0],
    ["?offset=0", 100, 0],
    ["?offset=2147483647", 100, 2147483647],
    ["?limit=500&offset=2147483647", 500, 2147483647],
  ])("%s is accepted at the bounds", async (query, limit, offset) => {
    const { pagination } = await listLeads(query);
    expect(pagination).toMatchObject({ total: 185, limit, offset });
  });

  it.each([["ab"], ["x".repeat(120)], [` ${"x".repeat(120)} `]])(
    "a referrer of 2 to 120 trimmed characters is accepted (%#)",
    async (referrer) => {
      expect((await listLeads(`?referrer=${encodeURIComponent(referrer)}`)).pagination.total).toBe(0);
    },
  );
});
