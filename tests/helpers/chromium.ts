import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { openApiDocument } from "./openapi";

/** Debian's Chromium (scripts/ensure-chromium.sh), driven by playwright-core without a download. */
const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Every operation and alias /docs must show: method, path and operationId, from the document itself. */
export const OPERATIONS = Object.entries<Record<string, { operationId: string }>>(openApiDocument().paths).flatMap(
  ([p, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: p,
      operationId: op.operationId,
    })),
);

/** A Chromium with a profile of its own, removed by `close`. */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(path.join(tmpdir(), "lead-intake-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens `<baseUrl>/docs` in Chromium, with `cookie` where a host's gate wants a session, and waits for Swagger UI to
 * show every operation: the page's status, the operations shown and what the page reported on its console.
 */
export async function docsInChromium(
  baseUrl: string,
  cookie?: { name: string; value: string },
): Promise<{ status: number | undefined; operations: number; consoleErrors: string[] }> {
  const { context, close } = await launchChromium();
  try {
    if (cookie) await context.addCookies([{ ...cookie, url: baseUrl }]);
    const page = context.pages()[0] ?? (await context.newPage());
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(`page error: ${error.message}`));
    const response = await page.goto(`${baseUrl}/docs`);
    await page
      .waitForFunction((n) => document.querySelectorAll(".opblock").length === n, OPERATIONS.length, {
        timeout: 30_000,
      })
      .catch(() => undefined);
    return { status: response?.status(), operations: await page.locator(".opblock").count(), consoleErrors };
  } finally {
    await close();
  }
}
