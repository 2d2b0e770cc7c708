import { json } from "@/lib/api/response";
import { apiRoute, routeMethods } from "@/lib/api/route";
import { database } from "@/lib/db/prisma";
import { listAgents } from "@/lib/leads/agents";

// Documented in lib/openapi/agents/list-agents.ts.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(async () => json({ agents: await listAgents(database()) })),
});
