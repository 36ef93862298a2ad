// Redaction by value: a server that echoes the key without its `sk-` prefix must not get it into
// stderr, the journal, outputs or the report. The real CLI runs in a child process against a tiny
// server that quotes the key it was sent: in an error, or in a reply's text when the prompt asks for an echo.
import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactSecrets, registerSecret } from "../src/errors.js";
import { tempDir } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const KEY = "sk-echoedSecret4f9a2c71";
const BARE = KEY.slice("sk-".length);

let server: Server;
let baseURL: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    const sent = (request.headers.authorization ?? "").replace(/^Bearer sk-/, "");
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    if (request.url === "/v1/models") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ object: "list", data: [{ id: "alpha-sonnet-4-6", object: "model", owned_by: "alpha" }] }),
      );
      return;
    }
    request.on("end", () => {
      if (body.includes("echo")) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(echoReply(`Your account is ${sent}.`)));
        return;
      }
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: {
            message: `Request refused for account ${sent}: bad prompt.`,
            type: "invalid_request_error",
            code: "invalid_parameter",
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function echoReply(content: string) {
  return {
    id: "chatcmpl-echo",
    object: "chat.completion",
    created: 1,
    model: "alpha-sonnet-4-6",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
  };
}

function cli(argv: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd,
    env: { ...process.env, SVC_BASE_URL: baseURL, SVC_API_KEY: KEY },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

describe("redaction by value", () => {
  it("masks a registered key with and without its sk- prefix", () => {
    registerSecret("sk-unitSecretValue123");
    expect(redactSecrets("a sk-unitSecretValue123 b unitSecretValue123 c")).not.toContain("unitSecretValue123");
  });

  it("keeps the local gateway's public demo key readable, and masks a key that only begins like it", () => {
    expect(redactSecrets("use the demo key sk-local-demo.")).toBe("use the demo key sk-local-demo.");
    expect(redactSecrets("key sk-local-demo2x")).toBe("key sk-[redacted]");
  });

  it("keeps a key echoed without its prefix out of stderr, journal, outputs and report of a run", {
    timeout: 120_000,
  }, async () => {
    const folder = await tempDir("svc-flow-redact-");
    await writeFile(
      path.join(folder, "flow.yaml"),
      `version: 1\nsteps:\n  - id: hello\n    uses: chat\n    retry: { attempts: 1 }\n    with: { model: alpha-sonnet-4-6, prompt: "Hi", maxTokens: 8 }\n`,
    );
    const run = await cli(["run", "flow.yaml", "--out", "run"], folder);
    expect(run.output).toContain("Request refused for account [redacted]");
    expect(run.output).not.toContain(BARE);
    const files = await readdir(path.join(folder, "run"));
    expect(files).toEqual(expect.arrayContaining(["journal.jsonl", "report.html", "cost.json"]));
    for (const file of files.filter((name) => /\.(jsonl?|html)$/.test(name))) {
      expect(await readFile(path.join(folder, "run", file), "utf8"), file).not.toContain(BARE);
    }
    expect(await readFile(path.join(folder, "run", "journal.jsonl"), "utf8")).toContain("[redacted]");
  });

  it("keeps a key a reply echoes without its prefix out of the journal, outputs and report of a run", {
    timeout: 120_000,
  }, async () => {
    const folder = await tempDir("svc-flow-redact-");
    await writeFile(
      path.join(folder, "flow.yaml"),
      `version: 1\nsteps:\n  - id: hello\n    uses: chat\n    with: { model: alpha-sonnet-4-6, prompt: "Please echo my account", maxTokens: 8 }\n`,
    );
    const run = await cli(["run", "flow.yaml", "--out", "run"], folder);
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toContain(BARE);
    const files = await readdir(path.join(folder, "run"));
    expect(files).toEqual(expect.arrayContaining(["journal.jsonl", "outputs.json", "report.html"]));
    for (const file of files.filter((name) => /\.(jsonl?|html)$/.test(name))) {
      expect(await readFile(path.join(folder, "run", file), "utf8"), file).not.toContain(BARE);
    }
    expect(await readFile(path.join(folder, "run", "journal.jsonl"), "utf8")).toContain("Your account is [redacted].");
  });

  it("keeps a key echoed without its prefix out of a chat command's error", { timeout: 60_000 }, async () => {
    const result = await cli(["chat", "Hi", "--model", "alpha-sonnet-4-6"], await tempDir());
    expect(result.output).toContain("[redacted]");
    expect(result.output).not.toContain(BARE);
  });
});
