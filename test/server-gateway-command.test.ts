import { writeFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { tempDir } from "./workflow-harness.js";

function capture() {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

/** Runs `svc-flow gateway ARGV` in-process, with its output captured; abort `controller` to stop it. */
function gatewayCommand(argv: readonly string[], cwd = process.cwd()) {
  const stdout = capture();
  const stderr = capture();
  const controller = new AbortController();
  const exit = main(["gateway", ...argv], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: {},
    cwd,
    signal: controller.signal,
  });
  return { stdout, stderr, controller, exit };
}

describe("svc-flow gateway", () => {
  it("prints exactly one stdout line with its base URL, serves, and stops on abort", async () => {
    const { stdout, controller, exit } = gatewayCommand(["--port", "0"]);
    let line = "";
    for (let attempt = 0; attempt < 100 && !line.includes("\n"); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      line = stdout.text();
    }
    const match = /^svc-flow gateway listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n$/.exec(line);
    expect(match).not.toBeNull();
    const response = await fetch(`${match![1]}/models`, { headers: { authorization: "Bearer sk-local-demo" } });
    expect(response.status).toBe(200);
    controller.abort();
    expect(await exit).toBe(0);
    expect(stdout.text()).toBe(line);
  });

  it("names the demo key in full when no keys are configured, and that key is accepted", async () => {
    const { stdout, stderr, controller, exit } = gatewayCommand(["--port", "0"]);
    for (let attempt = 0; attempt < 100 && !stderr.text().includes("Ctrl-C"); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const key = /use the demo key (\S+?)\. /.exec(stderr.text())?.[1];
    expect(key).toBe("sk-local-demo");
    const baseURL = /listening on (\S+)/.exec(stdout.text())![1];
    const response = await fetch(`${baseURL}/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    controller.abort();
    expect(await exit).toBe(0);
  });

  it("exits 2 for a bad port", async () => {
    const { stderr, exit } = gatewayCommand(["--port", "abc"]);
    expect(await exit).toBe(2);
    expect(stderr.text()).toMatch(/--port/);
  });

  it("exits 2 for a config file that does not validate", async () => {
    const { stderr, exit } = gatewayCommand(["--config", "/nonexistent/gateway.yaml"]);
    expect(await exit).toBe(2);
    expect(stderr.text()).toMatch(/gateway.yaml/);
  });

  it("says a config file that is not there is not there, naming the path to check", async () => {
    const { stderr, exit } = gatewayCommand(["--config", "/nonexistent/gateway.yaml"]);
    expect(await exit).toBe(2);
    expect(stderr.text()).toContain(
      "Cannot read gateway config /nonexistent/gateway.yaml: there is no such file. Check the path. [invalid_config]",
    );
  });

  it("reads a relative --config from the command's working folder", async () => {
    const folder = await tempDir("svc-flow-gateway-");
    await writeFile(path.join(folder, "gateway.yaml"), "keys:\n  - key: sk-test-relative\n");
    const { stderr, controller, exit } = gatewayCommand(["--port", "0", "--config", "gateway.yaml"], folder);
    while (!stderr.text().includes("\n")) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await exit).toBe(0);
    expect(stderr.text()).toContain("1 key(s) configured");
  });
});
