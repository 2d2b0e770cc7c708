import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/api/errors";
import { server, send, auth, jsonBody, setUpOperationsServers } from "../helpers/operations-servers";

setUpOperationsServers();

describe("connections after refusals", () => {
  it("are closed after 401 and 413 and kept alive otherwise", async () => {
    const unauthorised = await send(server.baseUrl, "GET", "/api/leads/sources");
    expect({ status: unauthorised.status, connection: unauthorised.headers.connection }).toEqual({
      status: 401,
      connection: "close",
    });
    const tooLarge = await send(server.baseUrl, "POST", "/api/leads", {
      headers: { ...jsonBody(), "content-length": String(MAX_BODY_BYTES + 1) },
      body: "{}",
    });
    expect({ status: tooLarge.status, connection: tooLarge.headers.connection }).toEqual({
      status: 413,
      connection: "close",
    });
    const invalid = await send(server.baseUrl, "GET", "/api/leads?limit=0", {
      headers: { ...auth(), connection: "keep-alive" },
    });
    expect({ status: invalid.status, connection: invalid.headers.connection }).toEqual({
      status: 400,
      connection: "keep-alive",
    });
  });
});
