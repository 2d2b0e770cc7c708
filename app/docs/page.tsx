import type { Metadata } from "next";
import SwaggerDocs from "@/components/SwaggerDocs";

export const metadata: Metadata = { title: "Lead Intake API documentation" };

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
