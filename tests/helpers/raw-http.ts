import { request, type IncomingHttpHeaders } from "node:http";

export interface RawAnswer {
  status: number;
  /** As Node parsed them: fetch would hide some (Connection) and refuse some methods (TRACE, CONNECT). */
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request on its own socket through node:http, answered with the raw status, headers and body text. */
export function sendOnOwnSocket(
  url: URL,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
