import { describe, expect, it, vi } from "vitest";
import { HostTable } from "@/lib/db/layout";
import { insertLeadSql, type ReferrerRow } from "@/lib/db/store/leads";
import { existingReferrer } from "@/lib/leads/create-lead";
import { newSourceRow } from "@/lib/leads/sources/ensure-source";
import { createLeadBody, type Agent } from "@/lib/leads/schemas";
import { newLeadOf } from "@/lib/leads/stored-lead";

/** Two different leads of each shape the route sends: their statements share one text and differ in values only. */
const input = (n: number) =>
  createLeadBody.parse({
    leadName: `Lead ${n}`,
    leadMobileNumber: `012-345 678${n}`,
    referrer: "Ads",
    leadCity: `C${n}`,
  });
const lead = (n: number, agent: Agent | null) => newLeadOf(input(n), agent, `cus_${n}`);
const agent = (n: number): Agent => ({
  id: `agent-${n}`,
  numericId: 40 + n,
  name: `Agent ${n}`,
  platformId: `p${n}`,
  accessLevels: ["sales"],
});
const referrers: Record<string, (n: number) => ReferrerRow> = {
  "a source by name or id": (n) => existingReferrer(`Source ${n}`),
  "an existing account": (n) => existingReferrer({ customerId: `cus_referrer_${n}` }),
  "a new source": (n) => ({ newSource: newSourceRow(`New ${n}`, "other") }),
};

describe("the creation statement", () => {
  for (const [kind, referrer] of Object.entries(referrers)) {
    for (const withAgent of [false, true]) {
      it(`for ${kind}, ${withAgent ? "with" : "without"} an agent, is built once and takes each request's values`, () => {
        // Building a statement writes each value through its column; sending a built one does not.
        const write = vi.spyOn(HostTable.prototype, "write");
        const send = (n: number) => insertLeadSql(lead(n, withAgent ? agent(n) : null), referrer(n));
        const first = send(1);
        write.mockClear();
        const sent = [first, send(2)];
        expect(write).not.toHaveBeenCalled();
        write.mockRestore();
        expect(sent[1].text).toBe(sent[0].text);
        for (const [i, { text, values }] of sent.entries()) {
          const n = i + 1;
          expect(new Set(text.match(/\$\d+/g)).size).toBe(values.length);
          expect(values).toEqual(expect.arrayContaining([`Lead ${n}`, input(n).leadMobileNumber, `C${n}`, `cus_${n}`]));
          if (withAgent) expect(values).toContain(40 + n);
          expect(values.filter((value) => typeof value === "object" && value !== null)).toEqual([]);
        }
        expect(sent[0].values).not.toEqual(expect.arrayContaining([`Lead 2`]));
      });
    }
  }
});
