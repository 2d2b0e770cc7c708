import { readJsonBody } from "@/lib/api/body";
import { creationRouted, openCreationGate } from "@/lib/api/creation-gate";
import { json } from "@/lib/api/response";
import { apiRoute, routeMethods } from "@/lib/api/route";
import { parseInput, parseQuery } from "@/lib/api/validation";
import { creating } from "@/lib/db/creation-budget";
import { database } from "@/lib/db/prisma";
import { reading } from "@/lib/db/read-budget";
import { createLead } from "@/lib/leads/create-lead";
import { listLeads } from "@/lib/leads/list-leads";
import { createLeadBody, listLeadsQuery } from "@/lib/leads/schemas";

// While creation is full, the preload refuses this route's POSTs before Next (lib/api/creation-gate.ts).
openCreationGate();

// Documented in lib/openapi/leads/list-leads.ts and create-lead.ts.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(async (request) => {
    const query = parseQuery(listLeadsQuery, request);
    const db = database();
    return json(await reading(db, () => listLeads(db, query)));
  }),
  POST: apiRoute(async (request) => {
    // Past the key, the admission and the rate limit: the preload stops counting it as on its way here.
    creationRouted();
    const input = parseInput(createLeadBody, await readJsonBody(request), "lead");
    const db = database();
    return json({ lead: await creating(db, () => createLead(db, input)) }, 201);
  }),
});
