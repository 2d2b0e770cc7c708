import fc from "fast-check";
import { TEST_KEY } from "./api";
import type { RawRequest } from "./hostile";
import {
  canonicalMobile,
  expectForBody,
  expectForQuery,
  KNOWN_FIELDS,
  MAX_BODY,
  PROJECT_TYPES,
  RELATIONSHIPS,
  type Expected,
  type World,
} from "./oracle";

/**
 * fast-check generators of hostile requests for all four operations and the
 * aliases, each with the answer the spec (and decisions.md) gives for it. The
 * expectation is worked out from what was actually sent (the bytes of the body,
 * the query text as a server parses it), so a mutation that happens to produce a
 * valid request expects a success, and one that breaks it expects the error
 * (tests/helpers/oracle.ts).
 */

export interface HostileCase {
  request: RawRequest;
  expected: Expected;
  /** Personal data sent (names, mobiles, addresses), to look for in logs. */
  personal: string[];
  kind: string;
}

const EDGE_CHARS = [
  "\u0000",
  "\u0001",
  "\u0008",
  "\u001b",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u00ad",
  "\u034f",
  "\u061c",
  "\u180e",
  "\u200b",
  "\u200d",
  "\u200e",
  "\u202e",
  "\u2028",
  "\u2029",
  "\u2066",
  "\u3000",
  "\ufeff",
  "\ufffd",
  "\uffff",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "\ud83d\ude00",
  "\ud83d",
  "e\u0301",
  "\t",
  "\n",
  "\r",
  "\v",
  " ",
  "\\",
  '"',
  "'",
  "`",
  "<",
  ">",
  "&",
  "%",
  "%00",
  "$1",
  "${x}",
  "{{x}}",
  "--",
  "/*",
  "*/",
  "';DROP TABLE referrals;--",
  "\\u0000",
  "\ud835\udd4f",
  "\u00df",
  "\u0130",
  "\ufb01",
  "\u0000\u0000",
  "NaN",
  "null",
  "__proto__",
  "\u{10ffff}",
];

/**
 * Any code point, lone surrogates included. (fast-check's "binary" unit builds a
 * reverse table of all 1.1 million code points on first use: seconds per run.)
 */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c));

/** Hostile text: edge characters (controls, bidi, zero width, surrogates, NUL) mixed with ordinary ones. */
export const hostileString = fc.oneof(
  fc.string({ unit: fc.oneof(fc.constantFrom(...EDGE_CHARS), anyCodePoint), maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 130 }),
  fc.string({
    unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 6,
  }),
  fc.string({ maxLength: 140 }),
  fc.constantFrom(
    "",
    " ",
    "  \t ",
    "a",
    "ab",
    " ab ",
    "\u0000ab",
    "ab\u0000",
    "\ud800ab",
    "x".repeat(121),
    "y".repeat(501),
  ),
);

/** A JSON value of any type but string (and no integers a field might accept). */
const nonString = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0.5, 1e300, 9007199254740992, [], {}, [""], [null], {
    a: 1,
  }),
  fc.jsonValue({ maxDepth: 3 }).filter((v) => typeof v !== "string"),
);

/** Deeply nested arrays or objects as raw JSON text. */
const deepJson = fc
  .record({ depth: fc.integer({ min: 1, max: 20_000 }), object: fc.boolean() })
  .map(({ depth, object }) =>
    object ? '{"a":'.repeat(depth) + "1" + "}".repeat(depth) : "[".repeat(depth) + "]".repeat(depth),
  );

const digits = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(""));

/** Valid Malaysian mobiles as people write them: 012-345 6789, +60 12…, 12-345 6789, 6012…, with formatting. */
const validMobile = fc
  .record({
    form: fc.constantFrom("0", "+60", "60", ""),
    rest: fc.integer({ min: 8, max: 10 }).chain(digits),
    seps: fc.array(fc.tuple(fc.constantFrom(" ", "-", ".", "(", ")", "  "), fc.nat()), { maxLength: 4 }),
  })
  .map(({ form, rest, seps }) => {
    let written = `${form}1${rest}`;
    // Formatting characters between digits, never before the leading +.
    for (const [sep, at] of seps) {
      const i = 1 + (at % (written.length - 1));
      written = written.slice(0, i) + sep + written.slice(i);
    }
    return written;
  })
  .filter((m) => m.length <= 40 && canonicalMobile(m) !== null);

const invalidMobile = fc.oneof(
  fc.constantFrom(
    "",
    "12345",
    "0123",
    "5123456789",
    "+61 12 345 6789",
    "+6",
    "+",
    "0123456789012345",
    "abc-def-ghij",
    "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669",
    "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19",
    "012\u2013345 6789",
    "012_345_6789",
    "012-345-6789-".repeat(4),
    "60 12 345 6789 0000",
    "++60123456789",
    "0x12345678",
    "012 345 6789\u0000",
  ),
  hostileString,
);

export interface Lead {
  [field: string]: unknown;
}

interface Pools {
  names: string[];
  sourceRefs: string[];
  newSources: string[];
  objectRefs: string[];
  agentRefs: (string | number)[];
  badAgentRefs: (string | number)[];
}

function pools(world: World, run: string): Pools {
  const existing = [...world.sourcesByKey.values()];
  return {
    names: ["Aminah Binti Ali", "Tan Wei Ming", "Rajesh Kumar", "Siti Nur'aini", "O'Brien-Lee"].map(
      (n) => `${n} ${run}`,
    ),
    sourceRefs: [
      ...existing.flatMap((s) => [
        s.name,
        s.name.toUpperCase(),
        `  ${s.name.toLowerCase().replace(/ /g, "   ")} `,
        s.id,
        s.id.toUpperCase(),
      ]),
    ],
    // New names in case and spacing variants; a person's id as a string is a new source name too (rule 5).
    newSources: [
      ...["Fuzz Roadshow", "fuzz roadshow", "  FUZZ   ROADSHOW ", "Fuzz Expo 2026", "fuzz  expo 2026"].map(
        (n) => `${n} ${run}`,
      ),
      ...world.persons.keys(),
    ],
    objectRefs: [...world.sourceIds, ...world.persons.keys()].flatMap((id) => [id, ` ${id} `]),
    agentRefs: world.agents.flatMap((a) => [a.platformId, a.id, String(a.id), ` ${a.platformId} `]),
    badAgentRefs: [
      ...world.ineligible.flatMap((u) => [u.id, String(u.id), ...(u.platformId ? [u.platformId] : [])]),
      "agent_does_not_exist",
      2147483647,
      2147483648,
      "2147483648",
      9007199254740991,
      "99999999999999999999",
    ],
  };
}

/** A valid lead body, built from the pools. */
function validLeads(p: Pools): fc.Arbitrary<Lead> {
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
  return fc
    .record({
      leadName: fc.constantFrom(...p.names),
      leadMobileNumber: validMobile,
      referrer: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...p.sourceRefs) },
        { weight: 2, arbitrary: fc.constantFrom(...p.newSources) },
        { weight: 2, arbitrary: fc.constantFrom(...p.objectRefs).map((customerId) => ({ customerId })) },
      ),
      assignedAgentId: optional(fc.constantFrom(...p.agentRefs)),
      leadState: optional(fc.constantFrom("Selangor", "", "  ", "Pulau Pinang")),
      leadCity: optional(fc.constantFrom("Shah Alam", "Kuala Lumpur", "")),
      leadAddress: optional(fc.constantFrom("12 Jalan Fuzz", "Lot 5, Persiaran Ujian", "")),
      relationship: optional(fc.constantFrom(...RELATIONSHIPS)),
      projectType: optional(fc.constantFrom(...PROJECT_TYPES)),
      remark: optional(fc.constantFrom("Call after 6pm", "")),
    })
    .map((lead) => Object.fromEntries(Object.entries(lead).filter(([, v]) => v !== undefined)));
}

type Entry = [string, unknown];
type Mutation = (entries: Entry[]) => Entry[];

const set =
  (key: string, value: unknown): Mutation =>
  (entries) => [...entries.filter(([k]) => k !== key), [key, value]];
const FIELDS = fc.constantFrom(...KNOWN_FIELDS);

function mutation(p: Pools): fc.Arbitrary<Mutation> {
  return fc.oneof(
    // wrong type, null, or missing
    fc.tuple(FIELDS, nonString).map(([f, v]) => set(f, v)),
    FIELDS.map(
      (f): Mutation =>
        (entries) =>
          entries.filter(([k]) => k !== f),
    ),
    // hostile text in any field, including the referrer's customerId and the agent id
    fc.tuple(FIELDS, hostileString).map(([f, v]) => set(f, v)),
    hostileString.map((v) => set("referrer", { customerId: v })),
    fc
      .tuple(
        fc.constantFrom("leadName", "referrer", "leadAddress", "remark", "leadCity"),
        fc.integer({ min: 100, max: 1200 }),
        fc.constantFrom("x", " ", "\u00e9", "\ud83d\ude00"),
      )
      .map(([f, n, c]) => set(f, c.repeat(n))),
    // unknown names, prototype keys among them; a referrer object with more than customerId
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom(
            "introducer",
            "source",
            "status",
            "campaignId",
            "assigned_agent",
            "LeadName",
            "lead_name",
            "__proto__",
            "constructor",
            "prototype",
            "toString",
            "hasOwnProperty",
            "",
            " leadName",
            "leadName\u0000",
          ),
          fc.string({ maxLength: 12 }),
        ),
        fc.oneof(nonString, hostileString, fc.constant({ polluted: "yes" })),
      )
      .map(([k, v]) => set(k, v)),
    fc.constantFrom(...p.objectRefs).map((id) => set("referrer", { customerId: id, type: "person" })),
    fc
      .constantFrom<unknown>(
        { customerId: "cus_does_not_exist" },
        { customerId: "src_000000000000000000000000" },
        { customerId: "" },
        { customerId: " " },
        { customerId: "x".repeat(121) },
        { __proto__: null, customerId: 5 },
        { customerId: ["a"] },
      )
      .map((r) => set("referrer", r)),
    // agents: unknown, ineligible, out of range, wrong format
    fc
      .oneof(
        fc.constantFrom(...p.badAgentRefs),
        fc.constantFrom<unknown>("", " ", "a b", "agent!", "a".repeat(81), 0, -1, 1.5, "1.5", "-1", "\u0661"),
        hostileString,
      )
      .map((v) => set("assignedAgentId", v)),
    // enums: near misses
    fc
      .constantFrom("family", "FRIEND", "Other ", " Other", "Business  Partner", "", "Others")
      .map((v) => set("relationship", v)),
    fc.constantFrom("residential (2%)", "RESIDENTIAL", "OTHER", "FACTORY (2%)", "").map((v) => set("projectType", v)),
    // mobiles: any form, valid or not
    fc.oneof(validMobile, invalidMobile).map((v) => set("leadMobileNumber", v)),
  );
}

const encoder = new TextEncoder();

/** Serialises entries as JSON text, keeping repeated keys (the last one wins when parsed) and "__proto__" as a key. */
function serialise(entries: Entry[]): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
}

/** A POST body: a lead mutated 0 to 3 times, or raw text damaged in JSON's syntax or UTF-8, or nothing like a lead. */
function postBody(p: Pools): fc.Arbitrary<{ bytes: Uint8Array; personal: string[]; kind: string }> {
  const lead = validLeads(p);
  const fromLead = (l: Lead): Entry[] => Object.entries(l);
  const personalOf = (l: Lead) =>
    ["leadName", "leadMobileNumber", "leadAddress"].filter((k) => typeof l[k] === "string").map((k) => l[k] as string);
  return fc.oneof(
    {
      weight: 20,
      arbitrary: lead.map((l) => ({
        bytes: encoder.encode(JSON.stringify(l)),
        personal: personalOf(l),
        kind: "valid lead",
      })),
    },
    {
      weight: 80,
      arbitrary: fc.tuple(lead, fc.array(mutation(p), { minLength: 1, maxLength: 3 })).map(([l, ms]) => {
        const entries = ms.reduce((e, m) => m(e), fromLead(l));
        return { bytes: encoder.encode(serialise(entries)), personal: personalOf(l), kind: "mutated lead" };
      }),
    },
    {
      // duplicate keys in the raw text: an invalid value then a valid one, or the reverse
      weight: 10,
      arbitrary: fc.tuple(lead, FIELDS, nonString, fc.boolean()).map(([l, f, bad, badFirst]) => {
        const entries = fromLead(l);
        const good = l[f] ?? (f === "remark" ? "ok" : undefined);
        const dup: Entry[] =
          good === undefined
            ? [[f, bad]]
            : badFirst
              ? [
                  [f, bad],
                  [f, good],
                ]
              : [
                  [f, good],
                  [f, bad],
                ];
        return {
          bytes: encoder.encode(serialise([...entries.filter(([k]) => k !== f), ...dup])),
          personal: personalOf(l),
          kind: "duplicate keys",
        };
      }),
    },
    {
      // damaged syntax: cut, spliced, wrapped, doubled, commented
      weight: 20,
      arbitrary: fc
        .tuple(
          lead,
          fc.nat(),
          fc.constantFrom("cut", "splice", "bom", "space", "double", "comma", "comment", "quotes", "garbage"),
          fc.string({ maxLength: 3 }),
        )
        .map(([l, at, how, junk]) => {
          const t = JSON.stringify(l);
          const i = at % (t.length + 1);
          const damaged = {
            cut: t.slice(0, i),
            splice: t.slice(0, i) + junk + t.slice(i),
            bom: `\ufeff${t}`,
            space: ` \n\t${t}\r\n `,
            double: t + t,
            comma: `${t.slice(0, -1)},}`,
            comment: `/*x*/${t}`,
            quotes: t.replace(/"/g, "'"),
            garbage: `${t}${junk}`,
          }[how];
          return { bytes: encoder.encode(damaged), personal: personalOf(l), kind: `syntax ${how}` };
        }),
    },
    {
      // invalid UTF-8 inside an otherwise valid body
      weight: 10,
      arbitrary: fc
        .tuple(
          lead,
          fc.nat(),
          fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80]),
        )
        .map(([l, at, bad]) => {
          const t = encoder.encode(JSON.stringify(l));
          const i = at % (t.length + 1);
          return {
            bytes: new Uint8Array([...t.slice(0, i), ...bad, ...t.slice(i)]),
            personal: personalOf(l),
            kind: "invalid utf-8",
          };
        }),
    },
    {
      // not a lead at all: any JSON, deep nesting, prototype pollution attempts, empty
      weight: 20,
      arbitrary: fc
        .oneof(
          fc.json({ maxDepth: 4 }),
          deepJson,
          fc.constantFrom(
            "",
            " ",
            "null",
            "true",
            "0",
            '""',
            "[]",
            "{}",
            '{"__proto__":{"polluted":"yes"}}',
            '{"constructor":{"prototype":{"polluted":"yes"}}}',
            "NaN",
            "undefined",
            "{'a':1}",
            "\u0000",
            "{\u0000}",
          ),
          fc.string({ unit: anyCodePoint, maxLength: 50 }),
        )
        .map((t) => ({ bytes: encoder.encode(t), personal: [], kind: "not a lead" })),
    },
    {
      // deep nesting as a field's value
      weight: 4,
      arbitrary: fc.tuple(lead, FIELDS, deepJson).map(([l, f, deep]) => {
        const t = JSON.stringify({ ...l, [f]: 0 }).replace(`"${f}":0`, `"${f}":${deep}`);
        return { bytes: encoder.encode(t), personal: personalOf(l), kind: "deep field" };
      }),
    },
    {
      // near and over the 1 MiB limit
      weight: 1,
      arbitrary: fc
        .tuple(lead, fc.integer({ min: MAX_BODY - 4096, max: MAX_BODY + 4096 }), fc.constantFrom("x", "\u00e9"))
        .map(([l, size, c]) => {
          const t = JSON.stringify({ ...l, remark: "" });
          const room = Math.max(0, Math.floor((size - encoder.encode(t).length) / encoder.encode(c).length));
          return {
            bytes: encoder.encode(t.replace('"remark":""', `"remark":"${c.repeat(room)}"`)),
            personal: personalOf(l),
            kind: "huge",
          };
        }),
    },
  );
}

/** Authorization headers, each with whether it authenticates (decisions.md 3: the scheme is case-insensitive). */
export function authHeaders(key = TEST_KEY): fc.Arbitrary<{ headers: [string, string][]; valid: boolean }> {
  const utf8AsLatin1 = (s: string) => Buffer.from(s, "utf8").toString("latin1");
  const last = key.at(-1)!;
  const valid = [
    `Bearer ${key}`,
    `bearer ${key}`,
    `BEARER ${key}`,
    `BeArEr ${key}`,
    `Bearer   ${key}`,
    `  Bearer ${key}  `,
  ];
  const invalid = [
    `Bearer ${key.slice(0, -1)}${last === "9" ? "8" : "9"}`,
    `Bearer ${key.slice(0, -1)}`,
    `Bearer ${key}0`,
    `Bearer ${key}${key}`,
    `Bearer ${key.toUpperCase()}`,
    `Bearer ${key} ${key}`,
    `Bearer ${key}, Bearer ${key}`,
    `Bearer "${key}"`,
    `Bearer\t${key}`,
    `Bearer:${key}`,
    `Bearer=${key}`,
    `Bearer${key}`,
    `Token ${key}`,
    `Basic ${Buffer.from(`user:${key}`).toString("base64")}`,
    `Basic ${Buffer.from(key).toString("base64")}`,
    `Bearer ${Buffer.from(key).toString("base64")}`,
    key,
    "Bearer",
    "Bearer ",
    "",
    " ",
    "Bearer null",
    "Bearer undefined",
    `Bearer ${utf8AsLatin1("ключ-ключ")}`,
    `Bearer ${utf8AsLatin1(key.slice(0, -1) + "é")}`,
    `Bearer ${key.slice(0, -1)}\u00e9`,
    `Bearer ${"A".repeat(8192)}`,
  ];
  return fc.oneof(
    {
      weight: 30,
      arbitrary: fc
        .constantFrom(...valid)
        .map((v) => ({ headers: [["Authorization", v]] as [string, string][], valid: true })),
    },
    {
      weight: 6,
      arbitrary: fc
        .constantFrom(...invalid)
        .map((v) => ({ headers: [["Authorization", v]] as [string, string][], valid: false })),
    },
    {
      // no Authorization at all; the key elsewhere (cookie, other headers) never counts
      weight: 2,
      arbitrary: fc
        .constantFrom<[string, string][]>(
          [],
          [["Cookie", `key=${key}`]],
          [["X-API-Key", key]],
          [["Api-Key", key]],
          [["Proxy-Authorization", `Bearer ${key}`]],
          [["Authorisation", `Bearer ${key}`]],
        )
        .map((headers) => ({ headers, valid: false })),
    },
    {
      // the header twice: one credential is all a Bearer header may carry
      weight: 1,
      arbitrary: fc.constantFrom(...valid, ...invalid).map((other) => ({
        headers: [
          ["Authorization", `Bearer ${key}`],
          ["Authorization", other],
        ] as [string, string][],
        valid: false,
      })),
    },
  );
}

/** Content-Type headers, each with whether it is application/json (any case, with or without parameters). */
const contentTypes = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .constantFrom(
        "application/json",
        "Application/JSON",
        "application/json; charset=utf-8",
        "application/json;charset=UTF-8",
        " application/json ",
        "application/json ; foo=bar",
        'APPLICATION/JSON; charset="utf-8"',
      )
      .map((v) => ({ headers: [["Content-Type", v]] as [string, string][], valid: true })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        "text/plain",
        "text/json",
        "application/jsonp",
        "application/json-patch+json",
        "application/ld+json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/*",
        "*/*",
        "json",
        "",
        "application/json, text/plain",
        "application /json",
        "application/json5",
        "application/xml",
      )
      .map((v) => ({ headers: [["Content-Type", v]] as [string, string][], valid: false })),
  },
  { weight: 1, arbitrary: fc.constant({ headers: [] as [string, string][], valid: false }) },
);

const GET_PATHS = ["/api/leads/sources", "/api/leads/ads", "/api/sources", "/api/leads/agents", "/api/agents"];

/** Query text: well-formed parameters, repeated ones, unknown ones, and raw garbage. */
function queryText(p: Pools): fc.Arbitrary<string> {
  const enc = encodeURIComponent;
  const param = fc.oneof(
    fc.integer({ min: 1, max: 500 }).map((n) => `limit=${n}`),
    fc
      .constantFrom(
        "0",
        "501",
        "-1",
        "1.5",
        "1e2",
        "0x10",
        "",
        " 5",
        "5 ",
        "abc",
        "+5",
        "\u0663",
        "99999999999999999999",
        "1,2",
        "NaN",
        "Infinity",
        "007",
        "500",
        "1",
      )
      .map((v) => `limit=${enc(v)}`),
    fc.integer({ min: 0, max: 2147483647 }).map((n) => `offset=${n}`),
    fc
      .constantFrom("0", "2147483647", "2147483648", "-0", "-1", "1.0", "", "1e3", "9".repeat(400), "00")
      .map((v) => `offset=${enc(v)}`),
    fc
      .oneof(
        fc.constantFrom(...p.sourceRefs, ...p.newSources),
        hostileString.filter((s) => s.isWellFormed()),
      )
      .map((v) => `referrer=${enc(v)}`),
    fc
      .constantFrom("", " ", "a", "x".repeat(121), "Facebook Ads,Google Ads", "*", "%", "Face%")
      .map((v) => `referrer=${enc(v)}`),
    fc.constantFrom(
      "Limit=5",
      "referrer[]=Facebook%20Ads",
      "referrer[0]=x",
      "introducer=x",
      "source=x",
      `key=${TEST_KEY}`,
      `access_token=${TEST_KEY}`,
      "=x",
      "__proto__=x",
      "constructor=x",
      "toString=1",
      "hasOwnProperty=1",
      "limit",
      "referrer",
    ),
    fc.constantFrom(
      "%",
      "%zz",
      "%ff",
      "%00",
      "+",
      ";",
      "&&",
      "limit=5;offset=1",
      "limit=%35",
      "limit=5%00",
      "referrer=%ED%A0%80ab",
      "referrer=%00ab",
      "referrer=Facebook+Ads",
      "referrer=%E2%80%AEabc",
    ),
  );
  return fc.array(param, { maxLength: 4 }).map((ps) => ps.join("&"));
}

/** Every kind of request: POSTs (most), list queries, the read operations and aliases, wrong methods and paths. */
export function hostileCases(world: World, run: string): fc.Arbitrary<HostileCase> {
  const p = pools(world, run);
  const post = fc.tuple(authHeaders(), contentTypes, postBody(p)).map(([auth, ct, body]): HostileCase => {
    const request: RawRequest = {
      method: "POST",
      path: "/api/leads",
      headers: [...auth.headers, ...ct.headers],
      body: body.bytes,
    };
    let expected: Expected;
    if (!auth.valid) expected = { outcomes: ["UNAUTHORIZED"] };
    else if (!ct.valid) expected = { outcomes: ["INVALID_CONTENT_TYPE"] };
    else if (body.bytes.byteLength > MAX_BODY) expected = { outcomes: ["PAYLOAD_TOO_LARGE"] };
    else expected = expectForBody(body.bytes, world);
    return { request, expected, personal: body.personal, kind: `POST ${body.kind}` };
  });
  const list = fc
    .tuple(authHeaders(), queryText(p), fc.option(contentTypes, { nil: undefined }))
    .map(([auth, query, ct]): HostileCase => ({
      request: {
        method: "GET",
        path: `/api/leads${query ? `?${query}` : ""}`,
        headers: [...auth.headers, ...(ct?.headers ?? [])],
      },
      expected: auth.valid ? expectForQuery(query) : { outcomes: ["UNAUTHORIZED"] },
      personal: [],
      kind: "GET /api/leads",
    }));
  const reads = fc
    .tuple(authHeaders(), fc.constantFrom(...GET_PATHS), fc.option(queryText(p), { nil: undefined }))
    .map(([auth, path, query]): HostileCase => ({
      // These take no parameters; any given are ignored.
      request: { method: "GET", path: query ? `${path}?${query}` : path, headers: auth.headers },
      expected: { outcomes: [auth.valid ? "200" : "UNAUTHORIZED"] },
      personal: [],
      kind: `GET ${path}`,
    }));
  const wrong = fc
    .tuple(
      authHeaders(),
      fc.oneof(
        fc.tuple(fc.constantFrom("PUT", "PATCH", "DELETE", "OPTIONS"), fc.constantFrom("/api/leads", ...GET_PATHS)),
        fc.tuple(fc.constant("POST"), fc.constantFrom(...GET_PATHS)),
      ),
      fc.option(postBody(p), { nil: undefined }),
    )
    .map(([auth, [method, path], body]): HostileCase => ({
      // No such operation: 405 whatever the key (nothing is read or written).
      request: { method, path, headers: [...auth.headers, ["content-type", "application/json"]], body: body?.bytes },
      expected: { outcomes: ["METHOD_NOT_ALLOWED"] },
      personal: body?.personal ?? [],
      kind: `${method} (not allowed)`,
    }));
  const nowhere = fc
    .tuple(
      authHeaders(),
      fc.constantFrom("GET", "POST", "DELETE"),
      fc.constantFrom(
        "/api/lead",
        "/api/leads/123",
        "/api/leads/sources/x",
        "/api/v1/leads",
        "/api/nowhere",
        "/api/leads/agents/1",
      ),
    )
    .map(([auth, method, path]): HostileCase => ({
      request: { method, path, headers: auth.headers },
      expected: { outcomes: ["NOT_FOUND"] },
      personal: [],
      kind: "unknown path",
    }));
  return fc
    .oneof(
      { weight: 24, arbitrary: post },
      { weight: 6, arbitrary: list },
      { weight: 4, arbitrary: reads },
      { weight: 2, arbitrary: wrong },
      { weight: 1, arbitrary: nowhere },
    )
    .map((c) => Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) }));
}

/** One line per case for failure reports (a body can be a megabyte). */
export function describeCase(c: HostileCase): string {
  const body = c.request.body === undefined ? "" : Buffer.from(c.request.body).toString("utf8");
  const shown = body.length > 300 ? `${body.slice(0, 300)}…(${body.length} chars)` : body;
  const headers = JSON.stringify(c.request.headers).slice(0, 300);
  return `[${c.kind}] ${c.request.method} ${c.request.path.slice(0, 300)} ${headers} ${JSON.stringify(shown)} => ${c.expected.outcomes.join("|")}`;
}
