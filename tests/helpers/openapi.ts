import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { buildOpenApiDocument } from "@/lib/openapi/document";

/**
 * Contract check: does a response (status, headers, JSON body) match what the
 * OpenAPI document says for its path and method? Bodies are validated with Ajv
 * (JSON Schema 2020-12) against the document's own schemas, which are strict
 * (additionalProperties false, every field required), so a field the code adds
 * or drops without the document fails, and so does an undocumented status.
 *
 * Paths the document does not have, and methods a documented path does not
 * support, are held to the document's NotFound and MethodNotAllowed responses
 * (decisions.md 11). HEAD is checked as GET, without a body.
 */

type Json = Record<string, any>;

export interface ContractResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

const COMPONENTS_ID = "https://lead-intake.invalid/openapi/components";

let state: { document: Json; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

/** The document, generated from the current source (as /openapi.json serves it). */
export function openApiDocument(): Json {
  return init().document;
}

function init() {
  if (state) return state;
  const document = buildOpenApiDocument();
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: toAjv(document.components.schemas) });
  state = { document, ajv, validators: new Map() };
  return state;
}

/** Component references point into the components schema registered with Ajv. */
function toAjv(value: unknown): any {
  if (Array.isArray(value)) return value.map(toAjv);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) =>
      key === "$ref" && typeof item === "string" && item.startsWith("#/components/schemas/")
        ? [key, `${COMPONENTS_ID}#/$defs/${item.slice("#/components/schemas/".length)}`]
        : [key, toAjv(item)],
    ),
  );
}

/** A validator for a schema of the document (JSON pointer `where` names it in the cache). */
export function schemaValidator(schema: Json, where: string): ValidateFunction {
  const { ajv, validators } = init();
  let validate = validators.get(where);
  if (!validate) {
    validate = ajv.compile(toAjv(schema));
    validators.set(where, validate);
  }
  return validate;
}

function resolve(ref: Json): Json {
  if (typeof ref.$ref !== "string") return ref;
  const pointer = ref.$ref.replace(/^#\//, "").split("/");
  return pointer.reduce(
    (node: any, key: string) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")],
    openApiDocument(),
  );
}

/** The documented path an alias (an operation's `x-aliases`) serves; any other path as it is. */
function canonicalPath(pathname: string): string {
  for (const [path, item] of Object.entries<Json>(openApiDocument().paths)) {
    if (Object.values<Json>(item).some((operation) => operation["x-aliases"]?.includes(pathname))) return path;
  }
  return pathname;
}

/** The Response Object the document gives for this request and status, and where it is. */
export function documentedResponse(
  method: string,
  pathname: string,
  status: number,
): { where: string; response?: Json } {
  const { paths, components } = openApiDocument();
  const item = paths[canonicalPath(pathname)];
  const verb = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
  if (!item) {
    return status === 404
      ? { where: "components.responses.NotFound", response: components.responses.NotFound }
      : { where: `undocumented path ${pathname} (only 404 NOT_FOUND is expected)` };
  }
  const operation = item[verb];
  if (!operation) {
    return status === 405
      ? { where: "components.responses.MethodNotAllowed", response: components.responses.MethodNotAllowed }
      : { where: `${method} ${pathname} is not documented (only 405 METHOD_NOT_ALLOWED is expected)` };
  }
  const where = `paths.${pathname}.${verb}.responses.${status}`;
  const response = operation.responses[status];
  return response ? { where, response: resolve(response) } : { where };
}

/** Every way the response departs from the document; empty when it matches. */
export function contractViolations(method: string, pathAndQuery: string, res: ContractResponse): string[] {
  const pathname = new URL(pathAndQuery, "http://localhost").pathname;
  const { where, response } = documentedResponse(method, pathname, res.status);
  if (!response) return [`status ${res.status} is not documented: ${where}`];
  const problems: string[] = [];

  for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
    const spec = resolve(header);
    const value = res.headers.get(name);
    if (value === null) {
      if (spec.required) problems.push(`header ${name} is missing`);
      continue;
    }
    const validate = schemaValidator(spec.schema, `${where}.headers.${name}`);
    if (!validate(value)) problems.push(`header ${name}: ${JSON.stringify(value)} ${describe(validate)}`);
  }

  const content = response.content?.["application/json"];
  if (!content) return problems;
  const type = res.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type))
    problems.push(`content-type is ${JSON.stringify(type)}, not application/json`);
  if (method.toUpperCase() === "HEAD") return problems;
  const validate = schemaValidator(content.schema, `${where}.content`);
  if (!validate(res.body)) problems.push(`body ${describe(validate)}`);
  return problems;
}

function describe(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map(
      (e) =>
        `${e.instancePath || "(root)"} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`,
    )
    .join("; ");
}

/** Throws when the response departs from the document (used by tests/helpers/api.ts call() on every response). */
export function assertContract(method: string, pathAndQuery: string, res: ContractResponse): void {
  const problems = contractViolations(method, pathAndQuery, res);
  if (!problems.length) return;
  const body = JSON.stringify(res.body) ?? "";
  throw new Error(
    `Response of ${method} ${pathAndQuery} (${res.status}) does not match the OpenAPI document:\n` +
      problems.map((p) => `  - ${p}`).join("\n") +
      `\n  body: ${body.length > 2000 ? `${body.slice(0, 2000)}…` : body}`,
  );
}
