import { describe, expect, it } from "vitest";
import { readConnections } from "@/lib/db/read-budget";

describe("the read connections of a pool (DATABASE_READ_CONNECTIONS)", () => {
  it("are half the pool by default, at least one", () => {
    expect([1, 2, 3, 10, 16].map((pool) => readConnections(pool, {}))).toEqual([1, 1, 1, 5, 8]);
  });

  it("take the configured number, leaving lead creation at least one connection of a pool of two or more", () => {
    expect(readConnections(10, { DATABASE_READ_CONNECTIONS: "3" })).toBe(3);
    expect(readConnections(10, { DATABASE_READ_CONNECTIONS: "10" })).toBe(9);
    expect(readConnections(10, { DATABASE_READ_CONNECTIONS: "50" })).toBe(9);
    expect(readConnections(1, { DATABASE_READ_CONNECTIONS: "4" })).toBe(1);
  });

  it("refuse a value that is not a whole number from 1 to 1000, in one sentence naming the variable", () => {
    for (const value of ["0", "-2", "1.5", "x", "5 connections", "1001"]) {
      expect(() => readConnections(10, { DATABASE_READ_CONNECTIONS: value }), value).toThrow(
        `DATABASE_READ_CONNECTIONS is ${JSON.stringify(value)}, not a whole number from 1 to 1000; set it to one, or unset it for the default, and start again`,
      );
    }
  });
});
