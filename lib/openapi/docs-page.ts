/**
 * The /docs page: the OpenAPI document (/openapi.json) rendered in the browser by swagger-ui-dist (/swagger-ui/),
 * read-only: no "Try it out" console (tryItOutEnabled false, no submit methods), no external validator badge, no
 * credentials, and a plugin that removes the Authorize button and the padlocks that open its dialog, so the page never
 * asks for, stores or sends the key. The curl examples in the descriptions show how to call the API. A page of its
 * own, not one of the app's: the app's layout and proxy do not touch it. Its one inline script carries the nonce of
 * its Content-Security-Policy (lib/openapi/docs-headers.ts); its icon is empty, so the browser asks for no
 * /favicon.ico the app may not have.
 */
const OPTIONS = {
  url: "/openapi.json",
  dom_id: "#swagger-ui",
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
};

const RENDER = `const Nothing = () => null;
const withoutAuthorization = () => ({ wrapComponents: { authorizeBtn: () => Nothing, authorizeOperationBtn: () => Nothing } });
window.SwaggerUIBundle({ ...${JSON.stringify(OPTIONS)}, plugins: [withoutAuthorization] });`;

export function docsPage(nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lead Intake API documentation</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/swagger-ui/swagger-ui.css">
</head>
<body>
<main>
<noscript>This page needs JavaScript. The OpenAPI document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="swagger-ui" data-testid="swagger-ui"></div>
</main>
<script src="/swagger-ui/swagger-ui-bundle.js"></script>
<script nonce="${nonce}">
${RENDER}
</script>
</body>
</html>
`;
}
