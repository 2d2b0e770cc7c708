// Alias of GET /api/leads/sources.
export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/leads/sources/route";
