/**
 * The security headers of the public documentation responses, /docs (Swagger UI), its files under /swagger-ui/ and
 * /openapi.json, set by their own route handlers, so they hold whatever proxy or middleware the app has. Everything
 * /docs loads comes from this server (/swagger-ui/, the document), so `'self'` is the source of everything; its one
 * inline script carries the per-request nonce. Swagger UI's stylesheet draws its icons from `data:` SVG URLs. No page
 * may frame any of them (clickjacking), and no response is sniffed as another type. Neither the page nor the document
 * may be kept by a cache without asking: a redeploy shows the new document at once.
 */
export function docsPageHeaders(nonce: string): Record<string, string> {
  return {
    "Cache-Control": "no-store",
    "Content-Security-Policy": [
      "default-src 'self'",
      `script-src 'self' 'nonce-${nonce}'`,
      `style-src 'self' 'nonce-${nonce}'`,
      "img-src 'self' data:",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
    "X-Content-Type-Options": "nosniff",
  };
}

/**
 * The document is data, never a page: it may load nothing and be framed by nothing. It changes with deploys, so a
 * cache must revalidate it (its ETag) before every use.
 */
export const DOCUMENT_HEADERS: Record<string, string> = {
  "Cache-Control": "no-cache",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
};

/** Swagger UI's files change only with the installed package; a cache revalidates them (their ETag) too. */
export const ASSET_HEADERS: Record<string, string> = {
  "Cache-Control": "no-cache",
  "X-Content-Type-Options": "nosniff",
};
