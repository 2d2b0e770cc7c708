/**
 * The security headers of /docs, its Swagger UI files and /openapi.json, set by their own handlers so they hold
 * whatever proxy the app has: everything from `'self'`, a nonce for the one inline script, no framing, no caching
 * without asking.
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
