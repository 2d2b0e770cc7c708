import type { Metadata } from "next";
import SwaggerDocs from "@/components/SwaggerDocs";

export const metadata: Metadata = { title: "Lead Intake API documentation" };

// Rendered per request, so no cache keeps the page of an earlier deployment: a static page would be sent with
// `s-maxage=31536000`. /openapi.json is a public file Next serves with `max-age=0`, so browsers revalidate it.
export const dynamic = "force-dynamic";

/**
 * Public API documentation: the OpenAPI document (public/openapi.json, generated
 * at build time from the zod schemas) rendered in the browser. Needs no key.
 */
export default function DocsPage() {
  return (
    <main>
      <noscript>
        This page needs JavaScript. The OpenAPI document itself is at <a href="/openapi.json">/openapi.json</a>.
      </noscript>
      <SwaggerDocs url="/openapi.json" />
    </main>
  );
}
