// A small MCP server (official SDK, stdio) for workflows/sign-off.yaml: a price list and a print shop.
// Any MCP server works the same way; this one keeps the example offline.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "shop", version: "1.0.0" });

server.registerTool(
  "price",
  { description: "The unit price of a product, in yuan.", inputSchema: { product: z.string() } },
  async ({ product }) => ({ content: [{ type: "text", text: JSON.stringify({ product, unitYuan: 129 }) }] }),
);

server.registerTool(
  "order_posters",
  { description: "Orders printed posters.", inputSchema: { headline: z.string(), copies: z.number().int().min(1) } },
  async ({ headline, copies }) => ({
    content: [{ type: "text", text: JSON.stringify({ order: `PO-${copies}-${headline.length}`, copies, headline }) }],
  }),
);

await server.connect(new StdioServerTransport());
