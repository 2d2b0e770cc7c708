/**
 * Next.js runs register() once per server process before it serves any request. Its work needs Node.js, so the
 * import sits under a NEXT_RUNTIME condition and the Edge compilation of this hook drops it.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") await (await import("@/lib/instrumentation/node")).registerNode();
}
