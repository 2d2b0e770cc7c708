import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostNames } from "@/lib/db/host-names";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { call, TEST_KEY, type CallOptions } from "../helpers/api";
import { creationContract, listingContract } from "../helpers/contract-cases";
import type { TestDatabase } from "../helpers/db";
import {
  checks,
  expectDocsServed,
  FIXTURES,
  type HostInstall,
  installIntoHostApp,
  MACHINE,
  mustRun,
  printedSteps,
  problems,
  referralsPage,
  run,
  tree,
  treeChanges,
  uninstallWithStep,
} from "../helpers/host-app";

/**
 * The module put into hosts whose tables are named their own way, each a copy of tests/fixtures/host-app with an
 * overlay: Prisma's default naming of the module's own model names and no config file (host-app-default-names), and
 * models, fields and a status enum of the host's own with its lead-intake.config.json (host-app-own-names). Each gets
 * the whole host test: the install and its printed steps, the contract's creation and listing through the host's
 * server, the host's own page showing the leads, /docs in Chromium, host:check, the host's lint, typecheck and build
 * unchanged, and the uninstall. The API answers the same whatever the host's names are.
 */
const EDITED = ["next.config.ts", "package.json", "prisma/schema.prisma"];
/** The module's own table names, which neither host has and the module must not create there. */
const OWN_TABLES = ["customers", "users", "referrals", "audit_entries"];

const VARIANTS = [
  {
    name: "Prisma's default naming of the module's model names, no config file",
    overlay: "host-app-default-names",
    tables: { Customer: "Customer", User: "User", Referral: "Referral", AuditEntry: "AuditEntry" },
  },
  {
    name: "models, fields and a status enum of its own, with lead-intake.config.json",
    overlay: "host-app-own-names",
    tables: { Customer: "Contact", User: "Member", Referral: "Deal", AuditEntry: "ActivityLog" },
  },
] as const;

describe.each(VARIANTS)("npm run host:install into a host with $name", (variant) => {
  let installed: HostInstall;
  let host: string;
  let db: TestDatabase;
  let baseUrl: string;
  let names: HostNames;

  /** A host table's or column's name as SQL wants it. */
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

  beforeAll(async () => {
    installed = await installIntoHostApp(variant.overlay);
    ({ app: host, db, baseUrl } = installed);
    names = JSON.parse(readFileSync(path.join(host, "lib/db/host-names.json"), "utf8")) as HostNames;
  }, 1_800_000);

  afterAll(async () => {
    await installed?.stop();
  });

  it("resolves the host's tables, adds no model for them and creates none of the module's own names", async () => {
    const tables = Object.fromEntries(Object.entries(names).map(([model, host]) => [model, host?.table]));
    expect(tables).toEqual(variant.tables);
    const { added, changed } = treeChanges(installed.before, installed.afterInstall);
    expect(changed).toEqual(EDITED);
    expect(added).toContain("lib/db/host-names.json");
    const models = (file: string) => [...file.matchAll(/^model (\w+) \{/gm)].map((m) => m[1]);
    const fixtureSchema = readFileSync(path.join(FIXTURES, variant.overlay, "prisma/schema.prisma"), "utf8");
    const schema = readFileSync(path.join(host, "prisma/schema.prisma"), "utf8");
    const addedModels = models(schema).filter((model) => !models(fixtureSchema).includes(model));
    expect(addedModels.filter((model) => model in variant.tables)).toEqual([]);
    expect(addedModels.every((model) => model.startsWith("Lead"))).toBe(true);
    // Every line of the host's schema is kept, in its order.
    const hostLines = fixtureSchema.replace(/\n$/, "").split("\n");
    let next = 0;
    for (const line of schema.split("\n")) if (line === hostLines[next]) next++;
    expect(hostLines.slice(next)).toEqual([]);
    const { rows } = await db.sql.query<{ table: string | null }>(
      "SELECT to_regclass(quote_ident(name))::text AS table FROM unnest($1::text[]) AS name",
      [OWN_TABLES],
    );
    expect(rows).toEqual(OWN_TABLES.map(() => ({ table: null })));
  });

  it("leaves the host's lint, typecheck and build as they were, and its /referrals page", async () => {
    expect(checks(host, { ...MACHINE, DATABASE_URL: db.url, LEADS_API_KEY: TEST_KEY })).toEqual(installed.checksBefore);
    expect(installed.buildAfter).toEqual(installed.buildBefore);
    expect(installed.pageBefore.status).toBe(200);
    expect(await referralsPage(baseUrl)).toEqual(installed.pageBefore);
  }, 300_000);

  const sales = { platformId: "plat-siti", name: "Siti Sales" };
  const target = {
    send: (method: string, pathAndQuery: string, options: CallOptions = {}) =>
      call(method, pathAndQuery, { ...options, baseUrl }),
    sales: {
      platformId: sales.platformId,
      numericId: async () => {
        const user = names.User;
        const { rows } = await db.sql.query<{ id: number }>(
          `SELECT ${quoted(user.columns.id!)} AS id FROM ${quoted(user.table)} WHERE ${quoted(user.columns.platformId!)} = $1`,
          [sales.platformId],
        );
        return rows[0]!.id;
      },
    },
    notSales: "plat-mona",
  };
  creationContract(target);
  listingContract(target);

  it("stores each lead in the host's own tables: its status column, its timestamps and its audit entry", async () => {
    const pending = await target.send("POST", "/api/leads", {
      body: { leadName: "Stored In Host Tables", leadMobileNumber: "0123459876", referrer: "Host Roadshow" },
    });
    const assigned = await target.send("POST", "/api/leads", {
      body: {
        leadName: "Assigned In Host",
        leadMobileNumber: "0123459877",
        referrer: "Host Roadshow",
        assignedAgentId: sales.platformId,
      },
    });
    const referral = names.Referral;
    const column = (field: keyof typeof referral.columns) => quoted(referral.columns[field]!);
    const { rows } = await db.sql.query(
      `SELECT ${column("leadName")} AS "leadName", ${column("status")}::text AS status,
              to_char(${column("createdAt")}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
       FROM ${quoted(referral.table)} WHERE ${column("id")} = ANY($1) ORDER BY ${column("id")}`,
      [[pending.body.lead.referralId, assigned.body.lead.referralId]],
    );
    const listed = await target.send("GET", `/api/leads?referrer=Host%20Roadshow`);
    expect(rows).toEqual(
      [...listed.body.leads].reverse().map((lead: { leadName: string; status: string; createdAt: string }) => ({
        leadName: lead.leadName,
        status: lead.status,
        createdAt: lead.createdAt,
      })),
    );
    expect(rows.map((row) => row.status)).toEqual(["Pending", "Assigned"]);
    const audit = names.AuditEntry!;
    const { rows: entries } = await db.sql.query(
      `SELECT count(*)::int AS n FROM ${quoted(audit.table)} WHERE ${quoted(audit.columns.referralId!)} = $1`,
      [pending.body.lead.referralId],
    );
    expect(entries).toEqual([{ n: 1 }]);
  });

  it("shows the module's leads on the host's own page, read through the host's own Prisma client", async () => {
    await target.send("POST", "/api/leads", {
      body: { leadName: "Shown On Host Page", leadMobileNumber: "0198887777", referrer: "Facebook Ads" },
    });
    const page = await referralsPage(baseUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Shown On Host Page (Pending) from Facebook Ads");
  });

  it("serves /docs and the module's own document", async () => {
    await expectDocsServed(baseUrl);
    const document = await fetch(`${baseUrl}/openapi.json`);
    expect(await document.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  }, 120_000);

  it("host:check: every line ok or a note, exit 0", () => {
    const ok = run("npm", ["run", "--silent", "host:check"], host, {
      DATABASE_URL: db.url,
      LEADS_API_KEY: TEST_KEY,
      LEADS_HOST_URL: baseUrl,
      NODE_OPTIONS: undefined,
    });
    const lines = ok.output.trim().split("\n");
    expect({ status: ok.status, failed: lines.filter((line) => !/^(ok|note) /.test(line)) }).toEqual({
      status: 0,
      failed: [],
    });
  }, 120_000);

  it("host:uninstall --yes: the host's files, lint, typecheck and build as before, and the host's rows kept", async () => {
    await installed.server.stop();
    const referral = names.Referral;
    const count = async () =>
      (await db.sql.query(`SELECT count(*)::int AS n FROM ${quoted(referral.table)}`)).rows[0].n as number;
    const leads = await count();
    const output = uninstallWithStep(host, db.url, MACHINE);
    expect(printedSteps(output)).toEqual(["npm install && npx prisma generate"]);
    expect(tree(host)).toEqual(installed.before);
    rmSync(path.join(host, ".next"), { recursive: true, force: true });
    expect(problems(mustRun("npm", ["run", "build"], host, MACHINE))).toEqual(installed.buildBefore);
    expect(checks(host, MACHINE)).toEqual(installed.checksBefore);
    expect(await count()).toBe(leads);
    const { rows } = await db.sql.query(
      `SELECT (SELECT count(*)::int FROM pg_proc WHERE proname LIKE 'lead_intake%') AS functions,
              (SELECT count(*)::int FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
               WHERE NOT t.tgisinternal AND c.relname = ANY($1)) AS triggers,
              (SELECT count(*)::int FROM pg_tables WHERE tablename LIKE 'lead\\_%') AS tables`,
      [Object.values(variant.tables)],
    );
    expect(rows).toEqual([{ functions: 0, triggers: 0, tables: 0 }]);
    expect(existsSync(path.join(host, "lib/db/host-names.json"))).toBe(false);
  }, 600_000);
});
