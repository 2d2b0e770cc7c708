import { authenticate } from "./auth";
import { ApiError } from "./errors";
import { errorResponse } from "./response";

type Handler = (request: Request) => Promise<Response>;

/**
 * The one wrapper every data operation goes through: key check, then the handler;
 * any failure becomes the documented JSON error. Unexpected failures answer 500
 * INTERNAL_ERROR and are logged by kind only (no message: it could hold SQL or a
 * lead's personal data).
 */
export function apiRoute(handler: Handler): Handler {
  return async (request) => {
    try {
      authenticate(request);
      return await handler(request);
    } catch (error) {
      // The rest of a refused oversized body is never read: tell the client not to reuse the connection.
      if (error instanceof ApiError) {
        return errorResponse(error, error.code === "PAYLOAD_TOO_LARGE" ? { Connection: "close" } : undefined);
      }
      logFailure(request, error);
      return errorResponse(new ApiError("INTERNAL_ERROR"));
    }
  };
}

function logFailure(request: Request, error: unknown): void {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  console.error(
    JSON.stringify({
      level: "error",
      msg: "request failed",
      method: request.method,
      path: new URL(request.url).pathname,
      error: typeof name === "string" ? name : typeof error,
      code: typeof code === "string" ? code : undefined,
    }),
  );
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
type Method = (typeof METHODS)[number];
type Methods = Record<Method, Handler>;

function everyMethod(handlers: Partial<Methods>, rest: Handler): Methods {
  return Object.fromEntries(METHODS.map((m) => [m, handlers[m] ?? rest])) as Methods;
}

/**
 * Route exports for every method: the given handlers, and 405 METHOD_NOT_ALLOWED
 * (JSON, no-store, with Allow) for the rest, which Next would otherwise answer
 * with an empty body. HEAD follows GET, as Next does by default. (Methods Next
 * routes to no handler at all are answered by scripts/method-guard.mjs.)
 */
export function routeMethods(handlers: Partial<Methods>): Methods {
  const allow = Object.keys(handlers).join(", ");
  return everyMethod(handlers, async (request) =>
    errorResponse(new ApiError("METHOD_NOT_ALLOWED", `${request.method} is not supported here; use ${allow}`), {
      Allow: allow,
    }),
  );
}

/** Every method of a path under /api that does not exist: 404 NOT_FOUND as JSON. */
export const notFound: Methods = everyMethod({}, async () => errorResponse(new ApiError("NOT_FOUND")));
