/**
 * The security headers of the two public documentation responses, /docs (Swagger UI) and /openapi.json, set by
 * proxy.ts. Everything /docs loads comes from this server (public/swagger-ui/, the document, Next's own chunks), so
 * `'self'` is the source of everything; Next's inline scripts carry the per-request nonce (Next reads it from the
 * request's Content-Security-Policy header). Swagger UI's stylesheet draws its icons from `data:` SVG URLs.
 * No page may frame either response (clickjacking), and no response is sniffed as another type.
 */
export function docsPageHeaders(nonce: string): Record<string, string> {
  return {
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
