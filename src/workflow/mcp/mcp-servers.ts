import path from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { McpServerError, McpToolError } from "../../errors.js";
import { splitReference } from "./mcp-reference.js";
import { isStdioServer, type McpSection, type McpServerSpec } from "./mcp-section-schema.js";

/** A tool an MCP server lists. */
export interface McpTool {
  readonly server: string;
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of its arguments. */
  readonly inputSchema: Record<string, unknown>;
}

/** What an MCP tool call gave back: its content, and whether the server marked it an error. */
export interface McpCallResult {
  readonly content: ReadonlyArray<Record<string, unknown>>;
  readonly structuredContent?: unknown;
  readonly isError: boolean;
}

/** Options of McpServers.start. */
export interface McpStartOptions {
  /** Folder relative `cwd`s (and so relative `args`) are read from: the workflow file's. */
  readonly baseDir: string;
  /** Time for one server to start and list its tools, in ms. Default 30 000. */
  readonly startTimeoutMs?: number;
  readonly signal?: AbortSignal;
}

const STDERR_KEPT_CHARS = 4000;
const DEFAULT_START_TIMEOUT_MS = 30_000;

interface Connection {
  readonly name: string;
  readonly client: Client;
  readonly stderr: () => string;
  tools: McpTool[];
  closedBy?: "us" | "itself";
}

/**
 * The MCP servers of one run (or one agent): started together, their tools listed once, stopped
 * together. A server that fails to start, or dies, is an McpServerError (`mcp_server_failed`) that
 * quotes the end of its stderr.
 */
export class McpServers {
  readonly #connections: Map<string, Connection>;

  private constructor(connections: Map<string, Connection>) {
    this.#connections = connections;
  }

  /** Starts every server of a resolved `mcp:` section (env already read) and lists its tools. */
  static async start(section: McpSection, options: McpStartOptions): Promise<McpServers> {
    const started = await Promise.allSettled(
      Object.entries(section).map(([name, spec]) => connect(name, spec, options)),
    );
    const connections = new Map(
      started.flatMap((outcome) =>
        outcome.status === "fulfilled" ? [[outcome.value.name, outcome.value] as const] : [],
      ),
    );
    const failure = started.find((outcome) => outcome.status === "rejected");
    if (failure !== undefined) {
      await new McpServers(connections).close();
      throw failure.reason;
    }
    return new McpServers(connections);
  }

  /** The servers' names, in the order the section gives them. */
  get names(): string[] {
    return [...this.#connections.keys()];
  }

  /** Every tool of every server. */
  tools(): McpTool[] {
    return [...this.#connections.values()].flatMap((connection) => connection.tools);
  }

  /** The tools a reference names: `server/tool`, or `server/*` for all of a server's; empty when none. */
  find(reference: string): McpTool[] {
    const [server, tool] = splitReference(reference);
    const tools = this.#connections.get(server)?.tools ?? [];
    return tool === "*" ? tools : tools.filter((candidate) => candidate.name === tool);
  }

  /** Calls a tool; a server that died meanwhile is an McpServerError with its stderr. */
  async call(
    server: string,
    tool: string,
    input: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<McpCallResult> {
    const connection = this.#connections.get(server);
    if (connection === undefined)
      throw new McpToolError(`There is no MCP server "${server}". Servers: ${this.names.join(", ") || "none"}.`, {
        code: "unknown_tool",
      });
    if (hasDied(connection)) throw died(connection);
    try {
      const result = await connection.client.callTool(
        { name: tool, arguments: input },
        undefined,
        signal === undefined ? {} : { signal },
      );
      return {
        content: (Array.isArray(result.content) ? result.content : []) as Array<Record<string, unknown>>,
        ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
        isError: result.isError === true,
      };
    } catch (error) {
      if (signal?.aborted === true) throw error;
      if (hasDied(connection)) throw died(connection, error);
      throw new McpToolError(`MCP tool ${server}/${tool} failed: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Stops every server (child processes end, HTTP sessions close). */
  async close(): Promise<void> {
    await Promise.allSettled(
      [...this.#connections.values()].map(async (connection) => {
        connection.closedBy ??= "us";
        await connection.client.close();
      }),
    );
  }
}

async function connect(name: string, spec: McpServerSpec, options: McpStartOptions): Promise<Connection> {
  let stderrText = "";
  let transport: Transport;
  if (isStdioServer(spec)) {
    const stdio = new StdioClientTransport({
      command: spec.command,
      ...(spec.args === undefined ? {} : { args: spec.args }),
      env: { ...getDefaultEnvironment(), ...spec.env },
      cwd: path.resolve(options.baseDir, spec.cwd ?? "."),
      stderr: "pipe",
    });
    (stdio.stderr as Readable | null)?.on("data", (chunk: Buffer) => {
      stderrText = (stderrText + chunk.toString()).slice(-STDERR_KEPT_CHARS);
    });
    transport = stdio;
  } else {
    let url: URL;
    try {
      url = new URL(spec.url);
    } catch {
      throw new McpServerError(`MCP server "${name}": ${spec.url} is not a URL.`);
    }
    transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: spec.headers ?? {} } });
  }
  const client = new Client({ name: "svc-flow", version: "0.1.0" });
  const connection: Connection = { name, client, stderr: () => stderrText, tools: [] };
  client.onclose = () => {
    connection.closedBy ??= "itself";
  };
  const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const signal =
    options.signal === undefined
      ? AbortSignal.timeout(timeoutMs)
      : AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]);
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
    const listed = await client.listTools(undefined, { signal, timeout: timeoutMs });
    connection.tools = listed.tools.map((tool) => ({
      server: name,
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema as Record<string, unknown>,
    }));
    return connection;
  } catch (error) {
    connection.closedBy ??= "us";
    await client.close().catch(() => undefined);
    const how = isStdioServer(spec) ? `\`${[spec.command, ...(spec.args ?? [])].join(" ")}\`` : spec.url;
    // Let the child's last words arrive before quoting them.
    await new Promise((resolve) => setTimeout(resolve, 50));
    throw new McpServerError(
      `MCP server "${name}" (${how}) did not start: ${(error as Error).message}.${stderrPart(stderrText)} Check its command${isStdioServer(spec) ? ", args and cwd" : " URL and headers"}.`,
      {
        cause: error,
      },
    );
  }
}

function hasDied(connection: Connection): boolean {
  return connection.closedBy === "itself";
}

function died(connection: Connection, cause?: unknown): McpServerError {
  return new McpServerError(
    `MCP server "${connection.name}" stopped while the run needed it.${stderrPart(connection.stderr())}`,
    cause === undefined ? {} : { cause },
  );
}

function stderrPart(stderr: string): string {
  const text = stderr.trim();
  return text === "" ? "" : ` Its stderr: ${text}`;
}
