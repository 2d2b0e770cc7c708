"use client";

import Script from "next/script";
import { useCallback, useRef } from "react";

/** The browser global of swagger-ui-dist's bundle (public/swagger-ui/, copied by scripts/build-openapi.ts). */
declare global {
  interface Window {
    SwaggerUIBundle?: (options: Record<string, unknown>) => unknown;
  }
}

const Nothing = () => null;

/**
 * Swagger UI plugin that removes the Authorize button and the padlocks that open
 * its dialog: the page never asks for, stores or sends the key.
 */
const withoutAuthorization = () => ({
  wrapComponents: { authorizeBtn: () => Nothing, authorizeOperationBtn: () => Nothing },
});

/**
 * Renders an OpenAPI document with swagger-ui-dist, read-only: no "Try it out"
 * console (tryItOutEnabled false, no submit methods), no external validator badge,
 * no credentials. The curl examples in the descriptions show how to call the API.
 */
export default function SwaggerDocs({ url }: { url: string }) {
  const container = useRef<HTMLDivElement>(null);

  const render = useCallback(() => {
    if (!window.SwaggerUIBundle || !container.current) return;
    window.SwaggerUIBundle({
      url,
      domNode: container.current,
      deepLinking: true,
      docExpansion: "list",
      defaultModelsExpandDepth: 1,
      defaultModelExpandDepth: 3,
      displayOperationId: true,
      tryItOutEnabled: false,
      supportedSubmitMethods: [],
      validatorUrl: null,
      persistAuthorization: false,
      withCredentials: false,
      plugins: [withoutAuthorization],
    });
  }, [url]);

  return (
    <>
      {/* eslint-disable-next-line @next/next/no-css-tags -- React hoists it into <head> of the docs page only */}
      <link rel="stylesheet" href="/swagger-ui/swagger-ui.css" precedence="default" />
      <Script src="/swagger-ui/swagger-ui-bundle.js" strategy="afterInteractive" onReady={render} />
      <div ref={container} data-testid="swagger-ui" />
    </>
  );
}
