import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrivateAddressError } from "../src/errors.js";
import { publicOnlyAgent } from "../src/net/public-only-agent.js";

let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  server = createServer((_request, response) => response.end("private")).on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function refusal(url: string): Promise<unknown> {
  try {
    const response = await request(url, { dispatcher: publicOnlyAgent(), signal: AbortSignal.timeout(3000) });
    await response.body.dump();
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe("publicOnlyAgent", () => {
  it.each([
    ["http://127.0.0.1:{port}/", "127.0.0.1 is loopback"],
    ["http://[::ffff:127.0.0.1]:{port}/", "::ffff:7f00:1 is loopback"],
    ["http://[::1]:{port}/", "::1 is loopback"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is link-local"],
    ["http://10.20.30.40/", "10.20.30.40 is private"],
  ])("refuses the literal address in %s before connecting", async (template, reason) => {
    const before = connections;
    const error = await refusal(template.replace("{port}", String(port)));
    expect(error).toBeInstanceOf(PrivateAddressError);
    expect(error).toMatchObject({ code: "private_address", reason });
    expect(connections).toBe(before);
  });

  it("refuses a host name on the address it resolves to", async () => {
    const before = connections;
    const error = await refusal(`http://localhost:${port}/`);
    expect(error).toBeInstanceOf(PrivateAddressError);
    expect((error as PrivateAddressError).reason).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1), which is loopback$/,
    );
    expect(connections).toBe(before);
  });

  it("is one Agent for the process", () => {
    expect(publicOnlyAgent()).toBe(publicOnlyAgent());
  });
});
