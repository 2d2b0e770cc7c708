import { ApiError, ERROR_CODES, ERRORS, hasRateLimitHeaders, retryAfterOf, type ErrorCode } from "@/lib/api/errors";
import { invalidInput } from "@/lib/openapi/examples";

/**
 * One operation of the OpenAPI document, typed, in its own file (lib/openapi/<noun>/<verb>.ts). Its error responses
 * come from the error table by code, so a code's status, meaning and example are written once.
 */

type Json = Record<string, unknown>;
interface Reference {
  $ref: string;
}
interface MediaType {
  schema: Json | Reference;
  examples?: Record<string, Reference | { summary: string; value: unknown }>;
}
interface Response {
  description: string;
  headers?: Record<string, Reference>;
  content?: { "application/json": MediaType };
  links?: Record<string, { operationId: string; parameters: Record<string, string>; description: string }>;
}
type Tag = "Leads" | "Sources" | "Agents" | "Health";
type Method = "get" | "post";

/** The subset of the OpenAPI 3.1 Operation Object this document uses. */
export interface Operation {
  operationId: string;
  tags: [Tag];
  summary: string;
  "x-aliases"?: string[];
  security?: [];
  description: string;
  parameters?: Reference[];
  requestBody?: { required: true; description: string; content: { "application/json": MediaType } };
  responses: Record<number, Response | Reference>;
}

/** An operation and where it is served. */
export interface PathOperation {
  path: string;
  method: Method;
  operation: Operation;
}

/** What an operation file states; `errors` are the codes it can answer, `aliases` the further paths serving it. */
interface OperationSource extends Omit<Operation, "responses" | "x-aliases"> {
  path: string;
  method: Method;
  /** The curl example that ends the description (tests/docs/document-examples.db.test.ts runs it). */
  curl: { query?: string; body?: unknown };
  responses: Record<number, Response>;
  errors?: ErrorCode[];
  aliases?: string[];
  /** Where the INVALID_INPUT example's issues are (default: the body of a POST, else the query). */
  invalidIn?: InvalidIn;
}

type InvalidIn = keyof typeof invalidInput;

export const ref = (to: string): Reference => ({ $ref: `#/components/${to}` });
/** Headers of every response: no-store, and the request id (lib/api/route.ts). */
const RESPONSE_HEADERS = { "Cache-Control": ref("headers/Cache-Control"), "X-Request-Id": ref("headers/X-Request-Id") };

const EXAMPLE_REQUEST_ID = "5b0e7c1a-9d2f-4e86-b3a1-0c7d2e9f4a61";
const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  METHOD_NOT_ALLOWED: "DELETE is not supported here; use GET, POST",
};

function errorExample(code: ErrorCode, invalidIn: InvalidIn) {
  const error = code === "INVALID_INPUT" ? invalidInput[invalidIn] : new ApiError(code, EXAMPLE_MESSAGES[code]);
  // [\s\S] rather than the `s` flag, which needs ES2018: create-next-app hosts compile to ES2017.
  return {
    summary: ERRORS[code].when.replace(/[.;:][\s\S]*/, ""),
    value: { ...error.toJSON(), requestId: EXAMPLE_REQUEST_ID },
  };
}

/** The response of one status: its codes with when each happens, the retry advice, one example per code. */
export function errorResponse(codes: ErrorCode[], invalidIn: InvalidIn = "body"): Response {
  const retry = [...new Set(codes.map((code) => ERRORS[code].retry))];
  return {
    description: [...codes.map((code) => `- \`${code}\`: ${ERRORS[code].when}`), "", ...retry].join("\n"),
    headers: {
      ...RESPONSE_HEADERS,
      ...(codes.includes("METHOD_NOT_ALLOWED") ? { Allow: ref("headers/Allow") } : {}),
      ...(codes.includes("UNAUTHORIZED") ? { "WWW-Authenticate": ref("headers/WWW-Authenticate") } : {}),
      ...(codes.some((code) => retryAfterOf(code) !== undefined || hasRateLimitHeaders(code))
        ? { "Retry-After": ref("headers/Retry-After") }
        : {}),
      ...(codes.some(hasRateLimitHeaders)
        ? { RateLimit: ref("headers/RateLimit"), "RateLimit-Policy": ref("headers/RateLimit-Policy") }
        : {}),
    },
    content: {
      "application/json": {
        schema: { type: "object", allOf: [ref("schemas/Error")], properties: { code: { enum: codes } } },
        examples: Object.fromEntries(codes.map((code) => [code, errorExample(code, invalidIn)])),
      },
    },
  };
}

function curlCommand(
  method: Method,
  path: string,
  security: [] | undefined,
  { query = "", body }: OperationSource["curl"],
): string {
  const url = `"$BASE_URL${path}${query}"`;
  const command = [
    "curl",
    ...(method === "get" ? [] : [`-X ${method.toUpperCase()}`]),
    ...(security ? [] : ['-H "Authorization: Bearer $LEADS_API_KEY"']),
  ];
  const continued = [
    ...(body === undefined ? [] : ['-H "Content-Type: application/json"', `-d '${JSON.stringify(body)}'`]),
    url,
  ];
  return command.length === 1 ? `curl ${url}` : [command.join(" "), ...continued].join(" \\\n  ");
}

/**
 * The operation as the document shows it: what every operation shares (curl example, aliases, no-store, request id)
 * added, with 404, 405 and 400 MALFORMED_REQUEST, which every path can answer.
 */
export function operation({
  path,
  method,
  curl,
  errors = [],
  aliases = [],
  responses,
  invalidIn,
  ...rest
}: OperationSource): PathOperation {
  const invalid = invalidIn ?? (method === "post" ? "body" : "query");
  const all: Operation["responses"] = { 404: ref("responses/NotFound"), 405: ref("responses/MethodNotAllowed") };
  for (const [status, response] of Object.entries(responses))
    all[Number(status)] = { ...response, headers: { ...RESPONSE_HEADERS, ...response.headers } };
  const codes: ErrorCode[] = [...errors, "MALFORMED_REQUEST"];
  for (const status of new Set(codes.map((code) => ERRORS[code].status))) {
    all[status] = errorResponse(
      ERROR_CODES.filter((code) => codes.includes(code) && ERRORS[code].status === status),
      invalid,
    );
  }
  const served = aliases.map((alias) => `\`${method.toUpperCase()} ${alias}\``).join(" and ");
  const description =
    `${rest.description}\n\n\`\`\`sh\n${curlCommand(method, path, rest.security, curl)}\n\`\`\`` +
    (aliases.length ? `\n\nAlso served, as the very same operation, at ${served} (\`x-aliases\`).` : "");
  return {
    path,
    method,
    operation: { ...rest, ...(aliases.length ? { "x-aliases": aliases } : {}), description, responses: all },
  };
}
