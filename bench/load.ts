// Load generation: autocannon against one URL. A POST's 429 CREATION_BUSY is the service shedding load, counted apart;
// any other answer that is not 2xx fails the run.
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
  /** 2xx answers per second. */
  rps: number;
  /** Latency of the 2xx answers, in ms. */
  p50: number;
  p99: number;
  /** Every answer, refusals included. */
  requests: number;
  /** POSTs refused with 429 CREATION_BUSY. */
  refused: number;
}

export async function load(
  url: string,
  connections: number,
  seconds: number,
  method: "GET" | "POST" = "GET",
): Promise<Load> {
  const latencies: number[] = [];
  let refused = 0;
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        requests: [
          {
            method,
            headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
            body: method === "POST" ? JSON.stringify(leadBody) : undefined,
            onResponse: (status, body) => {
              if (method === "POST" && status === 429 && body.includes('"CREATION_BUSY"')) refused++;
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  instance!.on("response", (_client, status, _bytes, responseTime) => {
    if (status >= 200 && status < 300) latencies.push(responseTime);
  });
  const result = await done;
  const failed = result.errors + result.timeouts + result.non2xx - refused;
  if (failed) throw new Error(`${method} ${url}: ${failed} failed requests of ${result.requests.total}`);
  latencies.sort((a, b) => a - b);
  const at = (share: number) =>
    round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? 0);
  return {
    rps: round(latencies.length / result.duration),
    p50: at(0.5),
    p99: at(0.99),
    requests: result.requests.total,
    refused,
  };
}

export function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
