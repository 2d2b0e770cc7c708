/**
 * The /docs page: the document rendered read-only by swagger-ui-dist, with no console and no Authorize dialog, so it
 * never asks for, stores or sends the key. A page of its own, so the app's layout and proxy do not touch it.
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
