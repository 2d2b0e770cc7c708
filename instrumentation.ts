/**
 * Next.js runs register() once per server process before it serves any request
 * (https://nextjs.org/docs/app/guides/instrumentation). Everything it does needs Node.js
 * (lib/runtime/node-instrumentation.ts); written as a condition on NEXT_RUNTIME around the
 * import, the Edge compilation of this hook drops that module entirely.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") await (await import("@/lib/runtime/node-instrumentation")).registerNode();
}
