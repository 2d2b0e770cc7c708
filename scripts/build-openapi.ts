// Build step (`npm run build` runs it before `next build`): writes the OpenAPI
// document, generated from the zod schemas, to public/openapi.json, and copies
// swagger-ui-dist's browser files to public/swagger-ui/ for the /docs page.
// Both are generated, git-ignored and served as static files.
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { buildOpenApiDocument } from "@/lib/openapi/document";

const root = path.resolve(import.meta.dirname, "..");
// The document's parts are read from the working directory: the folder holding lib/ (src/ in a host's src/ layout).
process.chdir(existsSync(path.join(root, "src/lib/openapi")) ? path.join(root, "src") : root);

const document = buildOpenApiDocument();
mkdirSync(path.join(root, "public"), { recursive: true }); // a fresh clone has no public/: it holds only generated files
writeFileSync(path.join(root, "public/openapi.json"), `${JSON.stringify(document, null, 2)}\n`);

const swaggerUi = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const target = path.join(root, "public/swagger-ui");
mkdirSync(target, { recursive: true });
for (const file of ["swagger-ui.css", "swagger-ui-bundle.js"])
  copyFileSync(path.join(swaggerUi, file), path.join(target, file));

console.log(
  `Wrote public/openapi.json (OpenAPI ${document.openapi}, contract ${document.info.version}) and public/swagger-ui/`,
);
