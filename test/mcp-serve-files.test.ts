// `mcp serve`'s callers are models' clients: a path they pass as a media or items input must name a
// file in the folders the server was given, so a call cannot make a run read and send any file on the
// machine. The SDK's client talks to the server over the SDK's in-memory transport.
import { copyFile, mkdir, readdir, readFile, symlink } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { createWorkflowMcpServer } from "../src/cli/workflow-mcp-server.js";
import { loadWorkflow } from "../src/workflow/load/load-workflow.js";
import { runWorkflow } from "../src/workflow/run/run-workflow.js";
import { billed, gatewayOptions, tempDir, useGateway } from "./workflow-harness.js";

const WORKFLOWS = path.join(import.meta.dirname, "..", "workflows");
const PHOTO = path.join(WORKFLOWS, "media", "sunset.png");
const gateway = useGateway();

async function connect(cwd: string, readableDirs?: string[]): Promise<Client> {
  const { server } = await createWorkflowMcpServer({
    workflowsDir: WORKFLOWS,
    cwd,
    ...(readableDirs === undefined ? {} : { readableDirs }),
    run: gatewayOptions(gateway.current),
    warn: () => undefined,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

function catalogue(client: Client, photos: string[]) {
  return client.callTool({ name: "photo-catalogue", arguments: { photos } }, undefined, { timeout: 60_000 });
}

function text(result: Awaited<ReturnType<typeof catalogue>>): string {
  return (result.content as Array<{ text?: string }>)[0]?.text ?? "";
}

describe("files an mcp serve call may name", () => {
  it("refuses a photo outside the server's folders before any call, naming --allow-dir", async () => {
    const [cwd, elsewhere] = await Promise.all([tempDir("svc-flow-mcp-cwd-"), tempDir("svc-flow-mcp-out-")]);
    await copyFile(PHOTO, path.join(elsewhere, "private.png"));
    const before = billed(gateway.current).length;
    const result = await catalogue(await connect(cwd), [path.join(elsewhere, "private.png")]);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`Input "photos" names ${path.join(elsewhere, "private.png")}, outside the folders`);
    expect(text(result)).toContain(`--allow-dir ${elsewhere}`);
    expect(billed(gateway.current).length).toBe(before);
    expect(await readdir(cwd)).toEqual([]);
  });

  it("refuses a link inside a folder that leads out of it", async () => {
    const [cwd, elsewhere] = await Promise.all([tempDir("svc-flow-mcp-cwd-"), tempDir("svc-flow-mcp-out-")]);
    await copyFile(PHOTO, path.join(elsewhere, "private.png"));
    await symlink(path.join(elsewhere, "private.png"), path.join(cwd, "innocent.png"));
    const result = await catalogue(await connect(cwd), [path.join(cwd, "innocent.png")]);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("outside the folders");
  });

  it("runs with a photo in the workflows folder, the current folder or an allowed one", {
    timeout: 60_000,
  }, async () => {
    const [cwd, allowed] = await Promise.all([tempDir("svc-flow-mcp-cwd-"), tempDir("svc-flow-mcp-allowed-")]);
    await mkdir(path.join(cwd, "shots"));
    await copyFile(PHOTO, path.join(cwd, "shots", "here.png"));
    await copyFile(PHOTO, path.join(allowed, "there.png"));
    const client = await connect(cwd, [WORKFLOWS, cwd, allowed]);
    const result = await catalogue(client, [
      "media/forest.png",
      path.join(cwd, "shots", "here.png"),
      path.join(allowed, "there.png"),
    ]);
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { entries: unknown[] }).entries).toHaveLength(3);
  });

  it("refuses a media link to this machine, which a run started from the command line downloads", {
    timeout: 60_000,
  }, async () => {
    const memo = await readFile(path.join(WORKFLOWS, "media", "memo.wav"));
    let served = 0;
    const local = createServer((_request, response) => {
      served++;
      response.writeHead(200, { "content-type": "audio/wav" }).end(memo);
    });
    await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
    const link = `http://127.0.0.1:${(local.address() as AddressInfo).port}/memo.wav`;
    try {
      const cwd = await tempDir("svc-flow-mcp-cwd-");
      const before = billed(gateway.current).length;
      const client = await connect(cwd);
      const result = await client.callTool({ name: "voice-memo-digest", arguments: { memo: link, cover: false } });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(
        `${link}: 127.0.0.1 is loopback; this run downloads links from public addresses only`,
      );
      expect(served).toBe(0);
      expect(billed(gateway.current).length).toBe(before);

      // The same link, from the command line's own run: the file is downloaded and heard.
      const workflow = await loadWorkflow(path.join(WORKFLOWS, "voice-memo-digest.yaml"));
      const run = await runWorkflow(
        workflow,
        gatewayOptions(gateway.current, { inputs: { memo: link, cover: false }, outDir: path.join(cwd, "cli-run") }),
      );
      expect(run.status).toBe("done");
      expect(served).toBe(1);
    } finally {
      local.close();
    }
  });
});
