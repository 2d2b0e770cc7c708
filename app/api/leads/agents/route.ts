import { json } from "@/lib/api/response";
import { apiRoute, routeMethods } from "@/lib/api/route";
import { database } from "@/lib/db/prisma";
import { reading } from "@/lib/db/read-budget";
import { listAgents } from "@/lib/leads/agents";

// Documented in lib/openapi/agents/list-agents.ts.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeMethods({
  GET: apiRoute(async () => {
    const db = database();
    return json({ agents: await reading(db, () => listAgents(db)) });
  }),
});
