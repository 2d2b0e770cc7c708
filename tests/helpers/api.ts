import * as catchAll from "@/app/api/[[...path]]/route";
import * as agentsAlias from "@/app/api/agents/route";
import * as live from "@/app/api/health/live/route";
import * as ready from "@/app/api/health/ready/route";
import * as adsAlias from "@/app/api/leads/ads/route";
import * as agents from "@/app/api/leads/agents/route";
import * as leads from "@/app/api/leads/route";
import * as sources from "@/app/api/leads/sources/route";
import * as sourcesAlias from "@/app/api/sources/route";
import { TEST_KEY } from "./key";
import { assertContract } from "./openapi";

export { TEST_KEY } from "./key";

type RouteModule = Record<string, (request: Request) => Promise<Response>>;

/** The app's routes by path, as Next maps them; anything else falls to the catch-all. */
const ROUTES: Record<string, RouteModule> = {
  "/api/leads": leads,
  "/api/leads/sources": sources,
  "/api/leads/ads": adsAlias,
  "/api/sources": sourcesAlias,
  "/api/leads/agents": agents,
  "/api/agents": agentsAlias,
  "/api/health/live": live,
  "/api/health/ready": ready,
};

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  /** A JSON-serialisable body, or a raw string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The bearer key; null sends no Authorization header. */
  key?: string | null;
  /** Where to send it: in-process route handlers (default) or a running server. */
  baseUrl?: string;
}

/**
 * Sends one request through the same route handlers Next serves, or over HTTP with baseUrl.
 * The response is checked against the OpenAPI document (tests/helpers/openapi.ts): any
 * undocumented status, header or body shape throws.
 */
export async function call<T = any>(
  method: string,
  pathAndQuery: string,
  options: CallOptions = {},
): Promise<ApiResponse<T>> {
  const { body, key = TEST_KEY, baseUrl } = options;
  const headers: Record<string, string> = { ...options.headers };
  if (key !== null) headers.authorization ??= `Bearer ${key}`;
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === "string" ? body : JSON.stringify(body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
      headers["content-type"] = "application/json";
  }
  const request = new Request(new URL(pathAndQuery, baseUrl ?? "http://localhost"), { method, headers, body: payload });
  const response = baseUrl ? await fetch(request) : await route(request);
  const text = await response.text();
  const result = {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : undefined,
    text,
  };
  // Every response any test receives must match the OpenAPI document (throws with the differences).
  assertContract(method, pathAndQuery, result);
  return result;
}

/** Hands a request to the route handler Next would pick for its path. */
export function route(request: Request): Promise<Response> {
  const handlers = ROUTES[new URL(request.url).pathname] ?? catchAll;
  return handlers[request.method](request);
}

export const post = (body: unknown, options: CallOptions = {}) => call("POST", "/api/leads", { ...options, body });

/** Tries a creation sends before postAdmitted gives up and returns the refusal. */
const ADMISSION_TRIES = 10;

/**
 * POSTs a lead until lead creation admits it: a 429 CREATION_BUSY is sent again after its Retry-After, as the API
 * tells callers to (docs/decisions.md, "Creation sheds load"); any other answer is returned as it is. For bursts
 * larger than what creation admits at once, where the test is about the creations, not the shedding.
 */
export async function postAdmitted(body: unknown, options: CallOptions = {}): Promise<ApiResponse> {
  for (let tries = 1; ; tries++) {
    const res = await post(body, options);
    if (res.status !== 429 || res.body?.code !== "CREATION_BUSY" || tries === ADMISSION_TRIES) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get("retry-after")) * 1000));
  }
}
