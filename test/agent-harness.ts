// Shared set-up of the agent and gateway-tool tests: a real local gateway on port 0, workspaces in
// a temporary folder, and a way to run a ready agent against both while recording what it did.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createAgentByName, type AgentContext, type AgentEvent, type AgentOutcome } from "../agents/index.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { startLocalGateway, type GatewayConfigInput, type LocalGateway } from "../src/server/index.js";

/** The demo key the local gateway accepts without keys configured. */
export const KEY = "sk-local-demo";

/** Music that finishes at once, so tests do not wait. */
export const FAST_MUSIC = { completeAfterMs: 20, clipSeconds: 1 } as const;

/** A local gateway plus temporary workspaces, all removed by `close()`. */
export interface AgentHarness {
  readonly gateway: LocalGateway;
  readonly connection: { readonly apiKey: string; readonly baseURL: string };
  /** A new empty workspace, with the given files written into it. */
  workspace(files?: Record<string, string | Buffer>): Promise<string>;
  /** Runs a ready agent on a task in a new workspace (or `options.workspace`), recording events and spend. */
  run(
    name: string,
    task: string,
    options?: Partial<AgentContext> & { files?: Record<string, string | Buffer> },
  ): Promise<AgentRun>;
  close(): Promise<void>;
}

/** What one agent run left behind. */
export interface AgentRun {
  readonly outcome: AgentOutcome;
  readonly events: AgentEvent[];
  readonly ledger: CostLedger;
  readonly workspace: string;
}

/** Starts a local gateway with `config` (fast music by default). */
export async function startAgentHarness(config: GatewayConfigInput = { music: FAST_MUSIC }): Promise<AgentHarness> {
  const gateway = await startLocalGateway({ config });
  const root = await mkdtemp(path.join(tmpdir(), "svc-flow-agents-"));
  const connection = { apiKey: KEY, baseURL: gateway.baseURL };
  let count = 0;
  const workspace = async (files: Record<string, string | Buffer> = {}) => {
    const folder = path.join(root, `workspace-${++count}`);
    for (const [name, content] of Object.entries({ ".keep": "", ...files })) {
      const target = path.join(folder, name);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, content);
    }
    return folder;
  };
  return {
    gateway,
    connection,
    workspace,
    async run(name, task, options = {}) {
      const { files, ...context } = options;
      const folder = context.workspace ?? (await workspace(files));
      const ledger = (context.ledger as CostLedger | undefined) ?? new CostLedger();
      const events: AgentEvent[] = [];
      const agent = createAgentByName(name, {
        gateway: connection,
        toolOptions: { musicPollIntervalMs: 10 },
        ...context,
        workspace: folder,
        ledger,
        onEvent: (event) => events.push(event),
      });
      try {
        const outcome = await agent.run(task);
        return { outcome, events, ledger, workspace: folder };
      } finally {
        await agent.close();
      }
    },
    async close() {
      await gateway.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Serves fixed bodies over HTTP on 127.0.0.1, for fetch_url and describe_image links. */
export async function startFileServer(
  files: Record<string, { type: string; body: string | Buffer }>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const file = files[request.url ?? ""];
    if (file === undefined) return void response.writeHead(404).end("not found");
    response.writeHead(200, { "content-type": file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
