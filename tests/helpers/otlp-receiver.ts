import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An OTLP/HTTP (JSON) receiver on a free loopback port: the bodies exported to one signal's path. */
export interface OtlpReceiver {
  url: string;
  bodies: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(signalPath: "/v1/traces" | "/v1/metrics"): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      if (req.url === signalPath) bodies.push(body);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
