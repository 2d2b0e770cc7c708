import type { z } from "zod/v4";
import { createLeadBody, listLeadsQuery } from "@/lib/leads/schemas";
import { ApiError } from "@/lib/api/errors";
import { ifNoneMatch, MAX_IF_NONE_MATCH_LENGTH } from "@/lib/api/response";
import { parseInput, parseQuery } from "@/lib/api/validation";
import { omittedFieldValues } from "@/lib/leads/fields";
import type { responseSchemas } from "@/lib/openapi/schemas";

/**
 * The document's examples, typed by the zod schemas. They name the records of prisma/seed/demo.json, so each
 * request example succeeds as shown after seeding it (tests/docs/document-examples.db.test.ts).
 */

type Out<K extends keyof typeof responseSchemas> = z.output<(typeof responseSchemas)[K]>;
const example = <T>(summary: string, value: T) => ({ summary, value });

const FACEBOOK = { id: "src_5f0c2a9e41d7b3c8a6e19d04f2b7a1c3", name: "Facebook Ads", type: "ads" } as const;
const INSTAGRAM = { id: "src_7c1e4b9a0d3f52e68b4a1f77c0d9e2a5", name: "Instagram Ads", type: "ads" } as const;
const WEBSITE = { id: "src_2d6f8a0c5e1b47d39f0a6b58e4c1d7f0", name: "Website Form", type: "other" } as const;
const AISYAH = {
  id: "demo-agent-aisyah",
  name: "Aisyah Rahman",
  platformId: "demo-agent-aisyah",
  numericId: 1,
  accessLevels: ["sales"],
};
const BEN = {
  id: "demo-agent-ben",
  name: "Benjamin Tan",
  platformId: "demo-agent-ben",
  numericId: 2,
  accessLevels: ["sales", "manager"],
};
const AMINAH = {
  referralId: 48213,
  leadCustomerId: "cus_b71f0e4a2c9d65e38a1b7f02c4d8e6a1",
  leadName: "Aminah Binti Ali",
  leadMobileNumber: "60123456789",
  referrer: { customerId: FACEBOOK.id, name: FACEBOOK.name, type: "source" as const },
  assignedAgentId: null,
  status: "Pending" as const,
};
/** What a listed lead shows for the optional fields a POST left out. */
const UNGIVEN = omittedFieldValues;

export const examples = {
  sources: example<Out<"SourcesResponse">>("Configured and created sources", {
    sources: [FACEBOOK, INSTAGRAM, WEBSITE],
    ads: [FACEBOOK, INSTAGRAM],
  }),
  agents: example<Out<"AgentsResponse">>("Assignable sales users", { agents: [AISYAH, BEN] }),
  noAgents: example<Out<"AgentsResponse">>("No eligible users: leave leads unassigned", { agents: [] }),
  minimalLead: example<z.input<typeof createLeadBody>>("Minimum body: unassigned lead from a source name", {
    leadName: "Aminah Binti Ali",
    leadMobileNumber: "012-345 6789",
    referrer: "Facebook Ads",
  }),
  assignedLead: example<z.input<typeof createLeadBody>>("All fields, assigned by platform ID", {
    leadName: "Tan Wei Ming",
    leadMobileNumber: "+60 11-2345 6789",
    referrer: "Instagram Ads",
    assignedAgentId: "demo-agent-aisyah",
    leadState: "Selangor",
    leadCity: "Petaling Jaya",
    leadAddress: "12 Jalan SS 2/24, 47300 Petaling Jaya",
    relationship: "Friend",
    projectType: "RESIDENTIAL (2%)",
    remark: "Prefers a call after 6 pm",
  }),
  personReferrerLead: example<z.input<typeof createLeadBody>>("Existing person as Introducer", {
    leadName: "Siti Nurhaliza",
    leadMobileNumber: "0198765432",
    referrer: { customerId: "cus_demo_person_01" },
    assignedAgentId: "demo-agent-ben",
    relationship: "Colleague",
  }),
  pendingLead: example<Out<"CreateLeadResponse">>("Unassigned lead (from the minimum body)", { lead: AMINAH }),
  assignedPersonLead: example<Out<"CreateLeadResponse">>("Assigned lead with a person Introducer", {
    lead: {
      referralId: 48214,
      leadCustomerId: "cus_0c5d8e2f7a1b49c36e0d5a83b2f4c6d9",
      leadName: "Siti Nurhaliza",
      leadMobileNumber: "60198765432",
      referrer: { customerId: "cus_demo_person_01", name: "Lim Siew Ling", type: "person" },
      assignedAgentId: "demo-agent-ben",
      status: "Assigned",
    },
  }),
  leadsPage: example<Out<"ListLeadsResponse">>(
    "A page of two records, the second a legacy record with missing values",
    {
      leads: [
        { ...AMINAH, ...UNGIVEN, createdAt: "2026-11-20T03:14:07.512Z" },
        {
          ...{
            ...AMINAH,
            ...UNGIVEN,
            referralId: 1002,
            leadName: "Chan Mei Yee",
            leadCustomerId: null,
            leadMobileNumber: null,
          },
          ...{ assignedAgentId: "demo-agent-aisyah", status: "Contacted", createdAt: null },
        },
      ],
      pagination: { total: 2, limit: 100, offset: 0, hasMore: false },
    },
  ),
  emptyPage: example<Out<"ListLeadsResponse">>("Unknown source: empty page", {
    leads: [],
    pagination: { total: 0, limit: 100, offset: 0, hasMore: false },
  }),
};

/** The server's own refusal of a request, so the INVALID_INPUT examples show its very words. */
function refusalOf(read: (request: Request) => unknown, request: Request): ApiError {
  try {
    read(request);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`The example request ${request.url} is valid`);
}

const BASE_URL = "http://localhost/api/leads";

/** The INVALID_INPUT examples: a POST body, GET /api/leads's query, and GET /api/leads/sources's If-None-Match. */
export const invalidInput = {
  body: refusalOf(
    () =>
      parseInput(
        createLeadBody,
        { leadName: "A", leadMobileNumber: "012-345 6789", referrer: "Facebook Ads", introducer: "Ali" },
        "lead",
      ),
    new Request(BASE_URL),
  ),
  query: refusalOf((request) => parseQuery(listLeadsQuery, request), new Request(`${BASE_URL}?limit=501`)),
  header: refusalOf(
    ifNoneMatch,
    new Request(`${BASE_URL}/sources`, {
      headers: { "If-None-Match": Array(MAX_IF_NONE_MATCH_LENGTH).fill('"1"').join(",") },
    }),
  ),
};
