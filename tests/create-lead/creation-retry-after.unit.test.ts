import { describe, expect, it } from "vitest";
import { CreationBudget, LONGEST_RETRY_AFTER_S } from "@/lib/db/creation-budget";

/** A creation that holds its connection for `ms`. */
const holding = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('the Retry-After of a refused creation (docs/decisions.md, "Creation sheds load")', () => {
  it("is the least given until a creation was measured", () => {
    expect(new CreationBudget(5).retryAfterSeconds(10_000, 1)).toBe(1);
  });

  it("grows with the callers already told to wait, at the measured rate, between the least and the longest", async () => {
    const budget = new CreationBudget(2);
    await Promise.all([budget.run(holding(50)), budget.run(holding(50))]);
    // Two connections at about 50 ms a creation admit about 40 a second.
    expect(budget.retryAfterSeconds(0, 1)).toBe(1);
    expect(budget.retryAfterSeconds(0, 3)).toBe(3);
    const atHundred = budget.retryAfterSeconds(100, 1);
    expect(atHundred).toBeGreaterThanOrEqual(2);
    expect(atHundred).toBeLessThanOrEqual(3);
    expect(budget.retryAfterSeconds(10_000, 1)).toBe(LONGEST_RETRY_AFTER_S);
  });
});
