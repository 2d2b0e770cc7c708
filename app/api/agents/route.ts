// Alias of GET /api/leads/agents.
export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/leads/agents/route";
