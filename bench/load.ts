// Load generation: autocannon against one URL, failing on any non-2xx answer.
import autocannon from "autocannon";

/** The API key every benchmarked server is started with. */
export const KEY = "bench-key-0123456789-0123456789-0123";

/** The lead every POST creates: an existing configured source, no agent. */
export const leadBody = {
  leadName: "Bench Lead",
  leadMobileNumber: "012-345 6789",
  referrer: "Facebook Ads",
};

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

export async function load(
  url: string,
  connections: number,
  seconds: number,
  method: "GET" | "POST" = "GET",
): Promise<Load> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: method === "POST" ? JSON.stringify(leadBody) : undefined,
  });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed) throw new Error(`${method} ${url}: ${failed} failed requests of ${result.requests.total}`);
  return {
    rps: round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
  };
}

export function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
