import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { buildOpenApiDocument } from "@/lib/openapi/document";

/**
 * What /openapi.json and /swagger-ui/ serve, from the module's own route handlers rather than files written into the
 * app's public/ folder: the document, built from the zod schemas once per process on its first request, and Swagger
 * UI's two browser files, read from the installed swagger-ui-dist package.
 */
export interface Served {
  body: string | Buffer;
  etag: string;
  contentType: string;
}

const etagOf = (body: string | Buffer) => `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

let document: Served | undefined;

export function servedDocument(): Served {
  if (!document) {
    const body = JSON.stringify(buildOpenApiDocument());
    document = { body, etag: etagOf(body), contentType: "application/json; charset=utf-8" };
  }
  return document;
}

/** The files of swagger-ui-dist the /docs page loads, by name, with their type. */
export const SWAGGER_UI_FILES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

const assets = new Map<string, Promise<Served>>();

/**
 * One of SWAGGER_UI_FILES, read once from the nearest node_modules at or above the app's folder (the working directory
 * of `next start`), as Node resolves a package: a workspace hoists it to its root. Undefined for any other name.
 */
export function swaggerUiFile(name: string): Promise<Served> | undefined {
  const contentType = Object.hasOwn(SWAGGER_UI_FILES, name) ? SWAGGER_UI_FILES[name] : undefined;
  if (contentType === undefined) return undefined;
  let asset = assets.get(name);
  if (!asset) {
    asset = readNearest(process.cwd(), path.join("node_modules", "swagger-ui-dist", name)).then((body) => ({
      body,
      etag: etagOf(body),
      contentType,
    }));
    asset.catch(() => assets.delete(name));
    assets.set(name, asset);
  }
  return asset;
}

/** The file at `relative` in `folder` or the nearest folder above it that has one. */
async function readNearest(folder: string, relative: string): Promise<Buffer> {
  try {
    return await readFile(path.join(folder, relative));
  } catch (error) {
    const parent = path.dirname(folder);
    if (parent === folder || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return readNearest(parent, relative);
  }
}

/** 200 with the body, or 304 when the request's If-None-Match names its ETag; `headers` on both. */
export function respond(request: Request, served: Served, headers: Record<string, string>): Response {
  const common = { ...headers, ETag: served.etag };
  const match = request.headers.get("if-none-match");
  if (match?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === served.etag))
    return new Response(null, { status: 304, headers: common });
  return new Response(new Uint8Array(Buffer.from(served.body)), {
    status: 200,
    headers: { ...common, "Content-Type": served.contentType },
  });
}
