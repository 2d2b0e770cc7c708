import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, OPERATIONS } from "../helpers/chromium";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { DOCUMENT_HEADERS } from "@/lib/openapi/docs-headers";
import { openApiDocument } from "../helpers/openapi";
import { EXPECTED_CODES, KNOWN_FIELDS } from "../helpers/oracle";
import { startServer, type RunningServer } from "../helpers/server";

/**
 * The public docs page in real Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core) against the production build served by lib/runtime/start.mjs.
 */

const SCREENSHOT = path.resolve(import.meta.dirname, "../../test-results/docs.png");

let db: TestDatabase;
let server: RunningServer;
let context: BrowserContext;
let closeChromium: (() => Promise<void>) | undefined;
let page: Page;
const consoleErrors: string[] = [];
const requests: { url: string; headers: Promise<Record<string, string>> }[] = [];

/** The Content Security Policy violations the page reported (its securitypolicyviolation events). */
async function violations(): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
}

async function expectNone(locator: Locator): Promise<void> {
  const found = await locator.evaluateAll((elements) => elements.map((e) => e.outerHTML.slice(0, 300)));
  expect(found).toEqual([]);
}

beforeAll(async () => {
  db = await createTestDatabase({ use: false });
  server = await startServer(db.url);
  ({ context, close: closeChromium } = await launchChromium());
  context.on("request", (request) => requests.push({ url: request.url(), headers: request.allHeaders() }));
  await context.addInitScript(() => {
    const seen: string[] = ((window as unknown as { cspViolations: string[] }).cspViolations = []);
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(`page error: ${error.message}`));
  const response = await page.goto(`${server.baseUrl}/docs`);
  expect(response?.status(), server.output()).toBe(200);
  await page.waitForFunction((n) => document.querySelectorAll(".opblock").length === n, OPERATIONS.length, {
    timeout: 30_000,
  });
}, 180_000);

afterAll(async () => {
  await closeChromium?.();
  await server?.stop();
  await db?.sql.end();
});

describe("/docs in Chromium", () => {
  it("is public: the page and /openapi.json need no key, and the JSON is the generated document", async () => {
    const docs = await fetch(`${server.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toMatch(/^text\/html/);
    // A redeploy shows the new document at once: neither the page nor the document may be kept by a cache.
    expect(docs.headers.get("cache-control")).toMatch(/no-store/);
    const json = await fetch(`${server.baseUrl}/openapi.json`);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(json.headers.get("cache-control")).toMatch(/max-age=0|no-cache|no-store/);
    expect(json.headers.get("cache-control")).not.toMatch(/s-maxage=[1-9]/);
    expect(await json.json()).toEqual(openApiDocument());
    // The data operations still need it.
    expect((await fetch(`${server.baseUrl}/api/leads/sources`)).status).toBe(401);
  });

  it("sends a Content Security Policy and nosniff on the page and the document", async () => {
    const docs = await fetch(`${server.baseUrl}/docs`);
    const policy = docs.headers.get("content-security-policy") ?? "";
    expect(policy.split("; ")).toEqual(
      expect.arrayContaining(["default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]),
    );
    // Inline scripts run only with this response's nonce, and a new one each time.
    const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]+)'(;|$)/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(await docs.text()).toContain(`nonce="${nonce}"`);
    expect((await fetch(`${server.baseUrl}/docs`)).headers.get("content-security-policy")).not.toContain(nonce);
    expect(docs.headers.get("x-content-type-options")).toBe("nosniff");
    const json = await fetch(`${server.baseUrl}/openapi.json`);
    expect(json.headers.get("content-security-policy")).toBe(DOCUMENT_HEADERS["Content-Security-Policy"]);
    expect(json.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("enforces the policy in the browser: the page rendered with no violation, and an injected inline script does not run", async () => {
    expect(await page.locator(".opblock").count()).toBe(OPERATIONS.length);
    expect(await violations()).toEqual([]);
    const ran = await page.evaluate(async () => {
      const script = document.createElement("script");
      script.textContent = "window.injectedScriptRan = true";
      document.body.append(script);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return (window as unknown as { injectedScriptRan?: boolean }).injectedScriptRan === true;
    });
    expect(ran).toBe(false);
    expect(await violations()).toEqual(["script-src-elem inline"]);
    // The browser reports the blocked script on the console too; nothing else may be there.
    expect(consoleErrors.filter((e) => !/Content Security Policy/.test(e))).toEqual([]);
    consoleErrors.splice(0);
  });

  it("renders the document's title and version with no console errors", async () => {
    await expect.poll(() => page.locator(".info .title").innerText()).toContain("Lead Intake API");
    expect(await page.locator(".info .title").innerText()).toContain("1.1.0");
    expect(await page.locator(".info").innerText()).toContain("no /v1 prefix");
    expect(consoleErrors).toEqual([]);
  });

  it("shows every operation and health check with its method and operationId (aliases are named in their operation, not as paths)", async () => {
    expect(OPERATIONS).toHaveLength(6);
    for (const { method, path: p, operationId } of OPERATIONS) {
      const block = page.locator(".opblock", { has: page.locator(`.opblock-summary-path[data-path="${p}"]`) }).filter({
        has: page.locator(".opblock-summary-method", { hasText: new RegExp(`^${method}$`) }),
      });
      await expect.poll(() => block.count(), { message: `${method} ${p}` }).toBe(1);
      expect(await block.locator(".opblock-summary-operation-id").innerText()).toBe(operationId);
    }
  });

  it("shows the fields, bounds and error codes of POST /api/leads when expanded", async () => {
    const operation = page.locator("#operations-Leads-createLead");
    await operation.locator(".opblock-summary").click();
    await operation.locator(".opblock-section-request-body").waitFor();
    await operation.locator(".opblock-section-request-body").getByRole("tab", { name: "Schema" }).click();
    const body = operation.locator(".opblock-section-request-body");
    await expect.poll(() => body.innerText()).toContain("leadMobileNumber");
    const text = await body.innerText();
    for (const field of KNOWN_FIELDS) {
      expect(text).toContain(field);
    }
    // Bounds apply after trimming: each field's description says them (its pattern expresses them exactly).
    expect(text).toMatch(/leadName\W*(Collapse all)?\s*string\s*≥ 2 characters/);
    expect(text).toContain("The lead's name. Trimmed; 2 to 120 characters after trimming.");
    expect(text).toContain("trimmed, then 6 to 40 characters");
    expect(text).toContain("Trimmed; at most 500 characters after trimming.");
    expect(text).toContain("Business Partner");
    expect(text).toContain("Additional properties");
    const responses = await operation.locator(".responses-wrapper").innerText();
    for (const status of ["201", "400", "401", "404", "405", "413", "415", "422", "500", "503"])
      expect(responses).toContain(status);
    for (const code of EXPECTED_CODES["post /api/leads"]) {
      expect(responses).toContain(code);
    }
    expect(await operation.innerText()).toContain('curl -X POST -H "Authorization: Bearer $LEADS_API_KEY"');
  });

  it("never asks for, stores or sends the key: no Authorize, no Try it out, no Authorization header", async () => {
    // Swagger UI's Authorize button (.btn.authorize), its padlocks (.authorization__btn), its dialog and console.
    await expectNone(page.getByRole("button", { name: /^(authorize|try it out|execute)$/i }));
    await expectNone(
      page.locator(".btn.authorize, .authorization__btn, .auth-wrapper, .try-out button, .execute-wrapper button"),
    );
    await expectNone(page.locator('input[type="password"], input[type="text"]:not(.operation-filter-input)'));
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
    );
    expect(stored).not.toMatch(/auth|bearer|key/i);

    const sent = await Promise.all(requests.map(async (r) => ({ url: r.url, headers: await r.headers })));
    expect(sent.length).toBeGreaterThan(3);
    expect(sent.filter((r) => "authorization" in r.headers).map((r) => r.url)).toEqual([]);
    // Everything comes from this server (no CDN, no validator badge), and no data operation is called.
    const origin = new URL(server.baseUrl).origin;
    expect(sent.filter((r) => new URL(r.url).origin !== origin).map((r) => r.url)).toEqual([]);
    expect(sent.filter((r) => new URL(r.url).pathname.startsWith("/api/")).map((r) => r.url)).toEqual([]);
    expect(sent.map((r) => new URL(r.url).pathname)).toEqual(
      expect.arrayContaining(["/docs", "/openapi.json", "/swagger-ui/swagger-ui-bundle.js"]),
    );
  });

  it("saves a screenshot to test-results/docs.png", async () => {
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(consoleErrors).toEqual([]);
  });
});
