import { connect, createServer, type Socket } from "node:net";

export interface LatencyProxy {
  /** The database URL through the proxy. */
  url: string;
  /** Milliseconds each chunk is held in each direction from now on (0: passed on at once). */
  delayMs: number;
  stop(): Promise<void>;
}

/**
 * A TCP proxy between a server and PostgreSQL that can add latency to every round trip, as a distant or busy
 * database would: bytes keep their order, nothing is dropped, and PostgreSQL's own timeouts do not see the delay.
 */
export async function startLatencyProxy(databaseUrl: string): Promise<LatencyProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const proxy = {} as LatencyProxy;
  proxy.delayMs = 0;
  // One queue per direction, so chunks leave in the order they came whatever the delay was when each came.
  const forward = (from: Socket, to: Socket) => {
    const queue: { due: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const drain = () => {
      timer = undefined;
      while (queue.length > 0 && queue[0].due <= Date.now()) {
        const { chunk } = queue.shift()!;
        if (!to.destroyed) to.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(drain, queue[0].due - Date.now());
      else if (from.destroyed) to.destroy();
    };
    from.on("data", (chunk: Buffer) => {
      queue.push({ due: Date.now() + proxy.delayMs, chunk });
      if (timer === undefined) drain();
    });
    from.on("close", () => timer === undefined && to.destroy());
    from.on("error", () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no TCP address");
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);
  proxy.url = url.toString();
  proxy.stop = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
