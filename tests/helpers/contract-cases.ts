import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/api/errors";
import type { ApiResponse, CallOptions } from "./api";
import { leadWithEveryField, validLead } from "./lead";

/**
 * The contract's cases for creation and listing that hold for any service whatever its host's names: the module on
 * its own (tests/contract/contract.db.test.ts) and through a host's server (tests/host/host-names.http.test.ts).
 */
export interface ContractTarget {
  /** Sends one request to the service under test through call(), so every answer is checked against the document. */
  send: (method: string, path: string, options?: CallOptions) => Promise<ApiResponse>;
  /** A user with the sales access level: its platform ID, and its numeric ID as the database gives it. */
  sales: { platformId: string; numericId: () => Promise<number> };
  /** The platform ID of a user without the sales access level. */
  notSales: string;
}

export async function expectCode(res: Promise<ApiResponse>, status: number, code: string): Promise<ApiResponse> {
  const r = await res;
  expect(r.status, r.text).toBe(status);
  expect(r.body.code).toBe(code);
  return r;
}

const minimal = validLead({ leadMobileNumber: "+60 11-2345 6789", referrer: "Roadshow Mid Valley" });

/** POST /api/leads: 201 in each referrer and agent form, 400, 401, 413, 415 and 422. */
export function creationContract({ send, sales, notSales }: ContractTarget): void {
  describe("contract: POST /api/leads", () => {
    it("201 for a new source, an assigned agent by platform and numeric ID, a person referrer and all fields", async () => {
      const created = await send("POST", "/api/leads", { body: minimal });
      expect(created.status).toBe(201);
      expect(created.body.lead).toMatchObject({
        status: "Pending",
        assignedAgentId: null,
        referrer: { type: "source" },
      });

      const assigned = await send("POST", "/api/leads", { body: { ...minimal, assignedAgentId: sales.platformId } });
      expect(assigned.body.lead).toMatchObject({ status: "Assigned", assignedAgentId: sales.platformId });

      const numeric = await send("POST", "/api/leads", {
        body: { ...minimal, assignedAgentId: await sales.numericId() },
      });
      expect(numeric.body.lead.assignedAgentId).toBe(sales.platformId);

      const personId = created.body.lead.leadCustomerId;
      const person = await send("POST", "/api/leads", {
        body: leadWithEveryField({ leadMobileNumber: "+60 11-2345 6789", referrer: { customerId: personId } }),
      });
      expect(person.status).toBe(201);
      expect(person.body.lead.referrer).toMatchObject({ customerId: personId, type: "person" });
    });

    it("400 INVALID_JSON and INVALID_INPUT (with issues)", async () => {
      await expectCode(send("POST", "/api/leads", { body: "{not json" }), 400, "INVALID_JSON");
      const invalid = await expectCode(
        send("POST", "/api/leads", { body: { ...minimal, leadName: "A", introducer: "x" } }),
        400,
        "INVALID_INPUT",
      );
      expect(invalid.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(["introducer", "leadName"]);
      await expectCode(send("POST", "/api/leads", { body: { ...minimal, remark: null } }), 400, "INVALID_INPUT");
      await expectCode(send("POST", "/api/leads", { body: [] }), 400, "INVALID_INPUT");
    });

    it("401, 413, 415", async () => {
      await expectCode(send("POST", "/api/leads", { body: minimal, key: null }), 401, "UNAUTHORIZED");
      await expectCode(
        send("POST", "/api/leads", { body: " ".repeat(MAX_BODY_BYTES) + "{}" }),
        413,
        "PAYLOAD_TOO_LARGE",
      );
      await expectCode(
        send("POST", "/api/leads", { body: JSON.stringify(minimal), headers: { "content-type": "text/plain" } }),
        415,
        "INVALID_CONTENT_TYPE",
      );
    });

    it("422 INVALID_AGENT and INVALID_REFERRER", async () => {
      await expectCode(
        send("POST", "/api/leads", { body: { ...minimal, assignedAgentId: notSales } }),
        422,
        "INVALID_AGENT",
      );
      await expectCode(
        send("POST", "/api/leads", { body: { ...minimal, assignedAgentId: 987654 } }),
        422,
        "INVALID_AGENT",
      );
      await expectCode(
        send("POST", "/api/leads", { body: { ...minimal, referrer: { customerId: "cus_nobody" } } }),
        422,
        "INVALID_REFERRER",
      );
    });
  });
}

/** GET /api/leads: 200 over all, one, an unknown source and past the end; 400 with issues and 401. */
export function listingContract({ send }: ContractTarget): void {
  describe("contract: GET /api/leads", () => {
    it("200 for all sources, one source, an unknown source and a page beyond the end", async () => {
      const all = await send("GET", "/api/leads");
      expect(all.status).toBe(200);
      expect(all.body.leads.length).toBeGreaterThan(0);
      const one = await send("GET", "/api/leads?referrer=roadshow%20mid%20valley&limit=1&offset=0");
      expect(one.body).toMatchObject({
        leads: [{ referrer: { name: "Roadshow Mid Valley" } }],
        pagination: { limit: 1 },
      });
      expect((await send("GET", "/api/leads?referrer=Nobody%20Here")).body.leads).toEqual([]);
      expect((await send("GET", "/api/leads?offset=2147483647&limit=500")).body.leads).toEqual([]);
    });

    it("400 INVALID_INPUT (with issues) and 401", async () => {
      for (const query of [
        "limit=0",
        "limit=501",
        "offset=-1",
        "limit=1.5",
        "limit=",
        "referrer=",
        "limit=1&limit=2",
        "page=2",
      ]) {
        const res = await expectCode(send("GET", `/api/leads?${query}`), 400, "INVALID_INPUT");
        expect(res.body.issues.length).toBeGreaterThan(0);
      }
      await expectCode(send("GET", "/api/leads", { key: null }), 401, "UNAUTHORIZED");
    });
  });
}
