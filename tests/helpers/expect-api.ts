import type pg from "pg";
import { expect } from "vitest";
import type { ApiResponse } from "./api";
import { rowCounts } from "./db";

/**
 * A documented error answer (spec "Errors"): the status of its code, JSON
 * `{error, code}` and nothing else (plus `issues` exactly on INVALID_INPUT),
 * never cached.
 */
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.body.code).toBe(code);
  expect(typeof res.body.error).toBe("string");
  expect(res.body.error.length).toBeGreaterThan(0);
  // The request's id, to quote to the operator: the same as the X-Request-Id header.
  expect(res.body.requestId).toBe(res.headers.get("x-request-id"));
  if (code === "INVALID_INPUT") {
    expect(Object.keys(res.body).sort()).toEqual(["code", "error", "issues", "requestId"]);
    expect(res.body.issues.length).toBeGreaterThan(0);
    for (const issue of res.body.issues) {
      expect(Object.keys(issue).sort()).toEqual(["message", "path"]);
      expect(typeof issue.path).toBe("string");
      expect(typeof issue.message).toBe("string");
    }
  } else {
    expect(Object.keys(res.body).sort()).toEqual(["code", "error", "requestId"]);
  }
}

/** Runs `act` and checks that no row of the tables the service writes was added or removed. */
export async function expectNoWrites<T>(sql: pg.Pool, act: () => Promise<T>): Promise<T> {
  const before = await rowCounts(sql);
  const result = await act();
  expect(await rowCounts(sql)).toEqual(before);
  return result;
}
