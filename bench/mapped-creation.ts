// The child of bench/mapped.ts: the route's creation work on DATABASE_URL, its statements built from the
// lib/db/host-names.json tsx resolves (the module's own, or a mapped host's through a tsconfig's `paths`).
// Each stdin line asks for a run ({ seconds, connections }); each answer is a line of its own.
import { createInterface } from "node:readline";
import { createDatabaseClient } from "@/lib/db/connect";
import { creating, isCreationBusy } from "@/lib/db/creation-budget";
import { HOST_NAMES } from "@/lib/db/host-names";
import { createLead } from "@/lib/leads/create-lead";
import { ensureConfiguredSources } from "@/lib/startup/configured-sources";
import { benchLead } from "./lead-transaction";
import { round, type Load } from "./load";

/** What starts each answer line, so the parent tells answers from anything else the modules print. */
const ANSWER = "mapped-creation: ";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is not set");
const db = createDatabaseClient(url);

/**
 * Creates leads as POST /api/leads does past validation, `connections` at a time for `seconds`; what the creation
 * budget refuses (the route's 429 CREATION_BUSY) is counted, not created.
 */
async function createFor(seconds: number, connections: number): Promise<Load & { refused: number }> {
  const latencies: number[] = [];
  let refused = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const at = performance.now();
        try {
          await creating(db, () => createLead(db, benchLead));
          latencies.push(performance.now() - at);
        } catch (error) {
          if (!isCreationBusy(error)) throw error;
          refused++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (share: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))]);
  return { rps: round(latencies.length / elapsed), p50: at(0.5), p99: at(0.99), requests: latencies.length, refused };
}

// The benchmark's lead names a configured default source: made through the map, as the service's start-up makes it.
await ensureConfiguredSources(db);
console.log(ANSWER + JSON.stringify({ customerTable: HOST_NAMES.Customer.table }));
for await (const line of createInterface({ input: process.stdin })) {
  const { seconds, connections } = JSON.parse(line) as { seconds: number; connections: number };
  console.log(ANSWER + JSON.stringify(await createFor(seconds, connections)));
}
await db.$disconnect();
