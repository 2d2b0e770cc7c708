import type { Metadata } from "next";
import { connection } from "next/server";
import { Suspense } from "react";
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
      <Suspense>
        <PerRequestDocs />
      </Suspense>
    </main>
  );
}

/**
 * Rendered per request, so no cache keeps the page of an earlier deployment: a static page would be sent with
 * `s-maxage=31536000`. `connection()` rather than the `dynamic` segment option, which a host with `cacheComponents`
 * refuses; inside Suspense, as `cacheComponents` requires of per-request work. /openapi.json is a public file Next
 * serves with `max-age=0`, so browsers revalidate it.
 */
async function PerRequestDocs() {
  await connection();
  return <SwaggerDocs url="/openapi.json" />;
}
