import { connection } from "next/server";
import { docsPageHeaders } from "@/lib/openapi/docs-headers";
import { docsPage } from "@/lib/openapi/docs-page";
import { otherThanGet } from "@/lib/api/route";

/**
 * Public API documentation, with a fresh nonce per request for its inline script. Needs no key. `connection()`: per
 * request even where the app prerenders what it can (`cacheComponents`).
 */
export async function GET(): Promise<Response> {
  await connection();
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  return new Response(docsPage(nonce), {
    headers: { ...docsPageHeaders(nonce), "Content-Type": "text/html; charset=utf-8" },
  });
}

// Every other method, TRACE included (lib/preload/method-guard.mjs), answers the API's JSON 405.
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherThanGet;
