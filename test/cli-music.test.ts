import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import type { GatewayConfigInput } from "../src/server/index.js";
import { gatewayEnv, runCli, startCli, type CliResult } from "./cli-harness.js";

const KEY = "sk-cli-music-secret-62aa";
let gateway: LocalGateway | undefined;
let dir: string;

async function start(music: NonNullable<GatewayConfigInput["music"]>): Promise<LocalGateway> {
  gateway = await startLocalGateway({ port: 0, config: { keys: [{ key: KEY, models: "*" }], music } });
  return gateway;
}
const spent = () => gateway!.stats().keys[0]!.spentYuan;
const noKey = (result: CliResult) => expect(result.stdout.text + result.stderr.text).not.toContain(KEY);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-cli-music-"));
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe("svc-flow music", () => {
  it("submits once, prints the clip ids first, waits, downloads both clips and reports ¥2", async () => {
    const local = await start({ completeAfterMs: 300 });
    const result = await runCli(["music", "an upbeat ukulele jingle", "--instrumental", "--out", "songs"], {
      env: gatewayEnv(local.baseURL, KEY),
      cwd: dir,
    });
    expect(result.code, result.stderr.text).toBe(0);
    const [first, ...paths] = result.stdout.text.trim().split("\n");
    const ids = first!.split(" ").slice(1);
    expect(first).toMatch(/^clips \S+ \S+$/);
    expect(paths).toEqual(ids.map((id) => join("songs", `${id}.wav`)));
    for (const path of paths) expect((await readFile(join(dir, path))).subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(result.stderr.text).toMatch(/^clips: .* ready, .* ready \(\d+ s\)$/m);
    expect(result.stderr.text).toMatch(/^cost ¥2\.0000; 1 call$/m);
    expect(spent()).toBe(2);
    noKey(result);
  });

  it("journals the ids before waiting, so an interrupted run is fetched with --clips without paying again", async () => {
    const local = await start({ completeAfterMs: 2500 });
    const stopped = startCli(["music", "a slow cello piece"], { env: gatewayEnv(local.baseURL, KEY), cwd: dir });
    // Ctrl-C as soon as the ids are out, while the clips are still being made.
    while (!stopped.stdout.text.includes("\n")) await new Promise((resolve) => setTimeout(resolve, 20));
    stopped.stop();
    expect(await stopped.exit).toBe(1);
    const ids = /^clips (\S+) (\S+)$/m.exec(stopped.stdout.text)?.slice(1);
    expect(ids).toHaveLength(2);
    expect(stopped.stderr.text).toContain(`svc-flow music --clips ${ids!.join(",")} --out music`);

    const fetched = await runCli(["music", "--clips", ids!.join(",")], {
      env: gatewayEnv(local.baseURL, KEY),
      cwd: dir,
    });
    expect(fetched.code, fetched.stderr.text).toBe(0);
    expect((await readdir(join(dir, "music"))).sort()).toEqual(ids!.map((id) => `${id}.wav`).sort());
    expect(spent()).toBe(2);
    expect(fetched.stderr.text).not.toMatch(/^cost /m);
  });

  it("gives up after --timeout with exit 1 and says how to fetch the clips later", async () => {
    const local = await start({ completeAfterMs: 60_000 });
    const result = await runCli(["music", "a very long symphony", "--timeout", "0.5"], {
      env: gatewayEnv(local.baseURL, KEY),
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr.text).toMatch(/had no audio after 500 ms/);
    expect(result.stderr.text).toMatch(/^The clips may still finish: svc-flow music --clips \S+,\S+ --out music$/m);
  });

  it("reports a failed job as refunded, with exit 1", async () => {
    const local = await start({ completeAfterMs: 100, failRate: 1 });
    const result = await runCli(["music", "something that fails"], { env: gatewayEnv(local.baseURL, KEY), cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr.text).toMatch(/\[music_failed/);
    expect(result.stderr.text).toMatch(/^cost ¥0\.0000; 1 call, 1 refunded$/m);
    expect(spent()).toBe(0);
  });

  it("refuses clip ids the gateway does not know with exit 2, without saying they may still finish", async () => {
    const local = await start({ completeAfterMs: 100 });
    const result = await runCli(["music", "--clips", "nope"], { env: gatewayEnv(local.baseURL, KEY), cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(/No clip "nope"/);
    expect(result.stderr.text).not.toMatch(/may still finish/);
    noKey(result);
  });

  it.each([
    [["music"], /Describe the music in quotes/],
    [["music", "a tune", "--clips", "a,b"], /not both/],
    [["music", "--clips", ","], /--clips to list clip ids/],
    [["music", "a tune", "--timeout", "0"], /--timeout to be above 0 seconds/],
  ])("rejects bad usage %j with exit 2", async (argv, message) => {
    const result = await runCli(argv, { env: {}, cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(message);
  });
});
