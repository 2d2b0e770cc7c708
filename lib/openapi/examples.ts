import { ApiError, type ErrorCode, type Issue } from "@/lib/api/errors";
import { MAX_BODY_BYTES } from "@/lib/api/body";
import type { z } from "zod";
import type { createLeadBody } from "@/lib/leads/schemas";
import type { agentsResponse, createLeadResponse, listLeadsResponse, sourcesResponse } from "./schemas";

/**
 * Realistic examples for every request and response of the document. They are
 * typed by the schemas and checked against the generated JSON Schemas by
 * tests/unit/openapi.test.ts, so they cannot drift from the contract.
 */

export interface Example<T> {
  summary: string;
  value: T;
}

type Examples<T> = Record<string, Example<T>>;

/** An error body exactly as the service serialises it (lib/api/response.ts errorResponse). */
const error = (code: ErrorCode, message: string, issues?: Issue[]) => ({
  ...new ApiError(code, message, issues).toJSON(),
  requestId: "5b0e7c1a-9d2f-4e86-b3a1-0c7d2e9f4a61",
});

const FACEBOOK = { id: "src_5f0c2a9e41d7b3c8a6e19d04", name: "Facebook Ads", type: "ads" } as const;
const GOOGLE = { id: "src_0b8e7d3f2a6c49e15d7f8a20", name: "Google Ads", type: "ads" } as const;
const ROADSHOW = { id: "src_9a3d6e1f7c2b48a05e6d9c31", name: "Roadshow Mid Valley", type: "other" } as const;
const TIKTOK = { id: "src_7c1e4b9a0d3f52e68b4a1f77", name: "TikTok Ads", type: "ads" } as const;
const WEBSITE = { id: "src_2d6f8a0c5e1b47d39f0a6b58", name: "Website Form", type: "other" } as const;

export const sourcesExamples: Examples<z.output<typeof sourcesResponse>> = {
  sources: {
    summary: "Configured and created sources",
    value: { sources: [FACEBOOK, GOOGLE, ROADSHOW, TIKTOK, WEBSITE], ads: [FACEBOOK, GOOGLE, TIKTOK] },
  },
};

const SARAH = {
  id: "sarah-lim-01",
  name: "Sarah Lim",
  platformId: "sarah-lim-01",
  numericId: 1042,
  accessLevels: ["sales"],
};

export const agentsExamples: Examples<z.output<typeof agentsResponse>> = {
  agents: {
    summary: "Two assignable sales users",
    value: {
      agents: [
        { id: "hafiz_r", name: "Muhammad Hafiz Rahman", platformId: "hafiz_r", numericId: 1007, accessLevels: ["sales", "manager"] },
        SARAH,
      ],
    },
  },
  none: { summary: "No eligible users: leave leads unassigned", value: { agents: [] } },
};

export const createLeadRequestExamples: Examples<z.input<typeof createLeadBody>> = {
  minimal: {
    summary: "Minimum body: unassigned lead from a source name",
    value: { leadName: "Aminah Binti Ali", leadMobileNumber: "012-345 6789", referrer: "Facebook Ads" },
  },
  assigned: {
    summary: "All fields, assigned by platform ID",
    value: {
      leadName: "Tan Wei Ming",
      leadMobileNumber: "+60 11-2345 6789",
      referrer: "Roadshow Mid Valley",
      assignedAgentId: "sarah-lim-01",
      leadState: "Selangor",
      leadCity: "Petaling Jaya",
      leadAddress: "12 Jalan SS 2/24, 47300 Petaling Jaya",
      relationship: "Friend",
      projectType: "RESIDENTIAL (2%)",
      remark: "Prefers a call after 6 pm",
    },
  },
  personReferrer: {
    summary: "Existing person as Introducer, numeric agent ID",
    value: {
      leadName: "Siti Nurhaliza",
      leadMobileNumber: "0198765432",
      referrer: { customerId: "cus_4e2a9c7b1d0f83a56c2e9b14" },
      assignedAgentId: 1042,
      relationship: "Colleague",
    },
  },
};

export const createLeadResponseExamples: Examples<z.output<typeof createLeadResponse>> = {
  pending: {
    summary: "Unassigned lead (from the minimal body)",
    value: {
      lead: {
        referralId: 48213,
        leadCustomerId: "cus_b71f0e4a2c9d65e38a1b7f02",
        leadName: "Aminah Binti Ali",
        leadMobileNumber: "60123456789",
        referrer: { customerId: FACEBOOK.id, name: FACEBOOK.name, type: "source" },
        assignedAgentId: null,
        status: "Pending",
      },
    },
  },
  assigned: {
    summary: "Assigned lead with a person Introducer",
    value: {
      lead: {
        referralId: 48214,
        leadCustomerId: "cus_0c5d8e2f7a1b49c36e0d5a83",
        leadName: "Siti Nurhaliza",
        leadMobileNumber: "60198765432",
        referrer: { customerId: "cus_4e2a9c7b1d0f83a56c2e9b14", name: "Lee Chong Wei", type: "person" },
        assignedAgentId: "sarah-lim-01",
        status: "Assigned",
      },
    },
  },
};

export const listLeadsExamples: Examples<z.output<typeof listLeadsResponse>> = {
  page: {
    summary: "First page of two records",
    value: {
      leads: [
        {
          referralId: 48213,
          leadCustomerId: "cus_b71f0e4a2c9d65e38a1b7f02",
          leadName: "Aminah Binti Ali",
          leadMobileNumber: "60123456789",
          referrer: { customerId: FACEBOOK.id, name: FACEBOOK.name, type: "source" },
          assignedAgentId: null,
          status: "Pending",
          leadState: "",
          leadCity: "",
          leadAddress: "",
          relationship: "Other",
          projectType: "OTHERS",
          remark: "",
          createdAt: "2026-11-20T03:14:07.512Z",
        },
        {
          referralId: 47960,
          leadCustomerId: null,
          leadName: "Rajesh Kumar",
          leadMobileNumber: "60162233445",
          referrer: { customerId: FACEBOOK.id, name: FACEBOOK.name, type: "source" },
          assignedAgentId: "hafiz_r",
          status: "Contacted",
          leadState: "Johor",
          leadCity: "Johor Bahru",
          leadAddress: "",
          relationship: "Business Partner",
          projectType: "SHOP-LOT (2%)",
          remark: "Legacy record",
          createdAt: null,
        },
      ],
      pagination: { total: 2, limit: 100, offset: 0, hasMore: false },
    },
  },
  unknownSource: {
    summary: "Unknown source: empty page",
    value: { leads: [], pagination: { total: 0, limit: 100, offset: 0, hasMore: false } },
  },
};

/** One example body per error code, serialised exactly as the service does. */
export const errorExamples: Record<ErrorCode, Example<unknown>> = {
  INVALID_JSON: { summary: "Body is not valid JSON", value: error("INVALID_JSON", "Request body is not valid JSON") },
  INVALID_INPUT: {
    summary: "Invalid fields",
    value: error("INVALID_INPUT", "Invalid lead", [
      { path: "leadName", message: "Too small: expected string to have >=2 characters" },
      { path: "introducer", message: "Unknown name: not part of the API" },
    ]),
  },
  UNAUTHORIZED: { summary: "Key missing or incorrect", value: error("UNAUTHORIZED", "Missing or incorrect bearer key") },
  NOT_FOUND: { summary: "No such path in this deployment", value: error("NOT_FOUND", "No such API path") },
  METHOD_NOT_ALLOWED: {
    summary: "Method not supported on this path",
    value: error("METHOD_NOT_ALLOWED", "DELETE is not supported here; use GET, POST"),
  },
  PAYLOAD_TOO_LARGE: {
    summary: "Body over the limit",
    value: error("PAYLOAD_TOO_LARGE", `Request body is larger than ${MAX_BODY_BYTES} bytes`),
  },
  INVALID_CONTENT_TYPE: {
    summary: "Not sent as application/json",
    value: error("INVALID_CONTENT_TYPE", "Content-Type must be application/json"),
  },
  INVALID_AGENT: {
    summary: "Agent unknown or not eligible",
    value: error("INVALID_AGENT", "assignedAgentId does not name a user eligible for sales assignment"),
  },
  INVALID_REFERRER: {
    summary: "Unknown referrer account",
    value: error("INVALID_REFERRER", "referrer.customerId does not name an existing customer account"),
  },
  INTERNAL_ERROR: { summary: "Request not completed", value: error("INTERNAL_ERROR", "The request could not be completed") },
  API_NOT_CONFIGURED: {
    summary: "No key configured on the server",
    value: error("API_NOT_CONFIGURED", "The API key is not configured on the server"),
  },
  ASSIGNMENT_NOT_CONFIGURED: {
    summary: "Assignment storage not enabled",
    value: error("ASSIGNMENT_NOT_CONFIGURED", "Lead assignment is not enabled in this host database"),
  },
};

/** The GET /api/leads variant of INVALID_INPUT: issues named by parameter. */
export const queryErrorExample: Example<unknown> = {
  summary: "Invalid query parameters",
  value: error("INVALID_INPUT", "Invalid query parameters", [{ path: "limit", message: "Too big: expected number to be <=500" }]),
};
