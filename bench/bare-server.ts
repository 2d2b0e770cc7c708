// The "bare" comparison: node:http + pg doing the service's creation transaction,
// with the same key check and zod validation, and nothing else. Started by bench/run.ts.
import { createServer } from "node:http";
import pg from "pg";
import { createLeadBody } from "@/lib/leads/schemas";
import { createLeadWithPg } from "./lead-transaction";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const key = `Bearer ${process.env.LEADS_API_KEY}`;

createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const send = (status: number, body: unknown) => {
    response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
    response.end(JSON.stringify(body));
  };
  if (request.headers.authorization !== key) return send(401, { code: "UNAUTHORIZED" });
  const input = createLeadBody.safeParse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
  if (!input.success) return send(400, { code: "INVALID_INPUT" });
  try {
    send(201, { lead: await createLeadWithPg(pool, input.data) });
  } catch {
    send(500, { code: "INTERNAL_ERROR" });
  }
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("Ready"));
