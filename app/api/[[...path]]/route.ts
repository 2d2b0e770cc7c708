import { notFound } from "@/lib/api/route";

// Any other path under /api: 404 NOT_FOUND as JSON instead of Next's HTML page.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = notFound;
