import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { errorBodySchema } from "../src/gateway/wire.js";
import { chatBody, errorOf, getWithKey, postJson, useGateway } from "./server-helpers.js";

const gateway = useGateway({
  config: {
    keys: [{ key: "sk-test-all" }, { key: "sk-test-narrow", models: ["beta-4o-mini"] }],
    limits: { maxBodyBytes: 64 * 1024 },
  },
});
const url = () => `${gateway().baseURL}/chat/completions`;
const post = (body: unknown) => postJson(url(), body, "sk-test-all");

// A tiny valid WAV (0.1 s of silence), for audio parts.
function wavBase64(): string {
  const samples = 800;
  const buffer = Buffer.alloc(44 + samples * 2);
  buffer.write("RIFF", 0, "latin1");
  buffer.writeUInt32LE(36 + samples * 2, 4);
  buffer.write("WAVEfmt ", 8, "latin1");
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(8000, 24);
  buffer.writeUInt32LE(16000, 28);
  buffer.writeUInt16LE(2, 32);
  buffer.writeUInt16LE(16, 34);
  buffer.write("data", 36, "latin1");
  buffer.writeUInt32LE(samples * 2, 40);
  return buffer.toString("base64");
}

const audioMessage = (format: string) => [
  {
    role: "user",
    content: [
      { type: "text", text: "What is said?" },
      { type: "input_audio", input_audio: { data: wavBase64(), format } },
    ],
  },
];

describe("local gateway parameter rules", () => {
  it.each([
    ["max_tokens to a beta-5 model", chatBody("beta-5", "Hi", { max_tokens: 100 }), "invalid_parameter", "max_tokens"],
    [
      "max_tokens to beta-5.4-nano",
      chatBody("beta-5.4-nano", "Hi", { max_tokens: 100 }),
      "invalid_parameter",
      "max_tokens",
    ],
    [
      "temperature to alpha-opus-4-8",
      chatBody("alpha-opus-4-8", "Hi", { temperature: 0.5 }),
      "invalid_parameter",
      "temperature",
    ],
    ["top_p to alpha-opus-4-8", chatBody("alpha-opus-4-8", "Hi", { top_p: 0.9 }), "invalid_parameter", "top_p"],
    ["temperature above 1", chatBody("beta-4o", "Hi", { temperature: 1.5 }), "invalid_parameter", "temperature"],
    ["temperature below 0", chatBody("beta-4o", "Hi", { temperature: -0.1 }), "invalid_parameter", "temperature"],
    ["missing messages", { model: "beta-4o" }, "invalid_parameter", "messages"],
    ["empty messages", { model: "beta-4o", messages: [] }, "invalid_parameter", "messages"],
    [
      "a bad role",
      { model: "beta-4o", messages: [{ role: "robot", content: "x" }] },
      "invalid_parameter",
      "messages[0].role",
    ],
    [
      "input_audio as flac",
      { model: "gamma-2.5-flash", messages: audioMessage("flac") },
      "unsupported_media",
      "messages[0].content[1].input_audio.format",
    ],
    [
      "input_audio to a model without audio",
      { model: "beta-4o", messages: audioMessage("wav") },
      "unsupported_media",
      "messages[0].content[1]",
    ],
    [
      "input_audio that is not audio",
      {
        model: "gamma-2.5-flash",
        messages: [
          { role: "user", content: [{ type: "input_audio", input_audio: { data: "aGVsbG8=", format: "mp3" } }] },
        ],
      },
      "unsupported_media",
      "messages",
    ],
    [
      "a tool message without tool_call_id",
      { model: "beta-4o", messages: [{ role: "tool", content: "42" }] },
      "invalid_parameter",
      "messages[0].tool_call_id",
    ],
  ])("answers 400 for %s", async (_name, body, code, param) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error).toMatchObject({ code, param });
    expect(error.message.length).toBeGreaterThan(10);
  });

  it("accepts wav audio on a gamma-2.5 model", async () => {
    const response = await post({ model: "gamma-2.5-flash", messages: audioMessage("wav") });
    expect(response.status).toBe(200);
  });

  it("tells the client to use max_completion_tokens", async () => {
    const error = await errorOf(await post(chatBody("beta-5", "Hi", { max_tokens: 100 })));
    expect(error.message).toMatch(/max_completion_tokens/);
  });

  it("accepts max_completion_tokens on a beta-5 model", async () => {
    expect((await post(chatBody("beta-5", "Hi", { max_completion_tokens: 2000 }))).status).toBe(200);
  });

  it("answers 400 invalid_json for a malformed body", async () => {
    const response = await post('{"model": "beta-4o", "messages": [');
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe("invalid_json");
  });

  it("answers 404 model_not_found for an unknown model, with suggestions", async () => {
    const response = await post(chatBody("beta-4oo"));
    expect(response.status).toBe(404);
    const error = await errorOf(response);
    expect(error.code).toBe("model_not_found");
    expect(error.message).toMatch(/beta-4o/);
  });

  it("answers 404 model_not_found for a model the key may not call", async () => {
    const response = await postJson(url(), chatBody("beta-4o"), "sk-test-narrow");
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe("model_not_found");
    expect((await postJson(url(), chatBody("beta-4o-mini"), "sk-test-narrow")).status).toBe(200);
  });

  it("lists only the models a key may call", async () => {
    const body = (await (await getWithKey(`${gateway().baseURL}/models`, "sk-test-narrow")).json()) as {
      data: { id: string }[];
    };
    expect(body.data.map((model) => model.id)).toEqual(["beta-4o-mini"]);
  });

  it("answers every error with the wire format's error body", async () => {
    const response = await post(chatBody("beta-5", "Hi", { max_tokens: 1 }));
    expect(errorBodySchema.safeParse(await response.json()).success).toBe(true);
  });
});

describe("local gateway request size", () => {
  const big = () => JSON.stringify(chatBody("beta-4o", "x".repeat(100 * 1024)));

  it("answers 413 request_too_large for a body over the limit", async () => {
    const response = await post(big());
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("request_too_large");
  });

  it("answers 413 for a chunked body once it passes the limit", async () => {
    const payload = Buffer.from(big());
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        url(),
        { method: "POST", headers: { authorization: "Bearer sk-test-all", "transfer-encoding": "chunked" } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on("error", reject);
      for (let offset = 0; offset < payload.length; offset += 8192)
        request.write(payload.subarray(offset, offset + 8192));
      request.end();
    });
    expect(status).toBe(413);
  });

  it("answers 413 from the declared length before the body is sent", async () => {
    const { port } = new URL(gateway().rootURL);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-test-all\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`,
        );
      });
      let text = "";
      socket.on("data", (data) => {
        text += data.toString();
        if (text.includes("\r\n\r\n")) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("error", reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 413/);
  });

  it("refuses an oversized upload announced with Expect: 100-continue without asking for it", async () => {
    const { port } = new URL(gateway().rootURL);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-test-all\r\nContent-Length: ${1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`,
        );
      });
      socket.once("data", (data) => {
        socket.destroy();
        resolve(data.toString());
      });
      socket.on("error", reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 413/);
  });
});

describe("local gateway endpoints that are not offered", () => {
  it.each(["embeddings", "audio/speech", "audio/transcriptions"])(
    "answers 404 not_offered for /v1/%s",
    async (path) => {
      const response = await postJson(`${gateway().baseURL}/${path}`, { model: "x", input: "hello" }, "sk-test-all");
      expect(response.status).toBe(404);
      const error = await errorOf(response);
      expect(error.code).toBe("not_offered");
      expect(error.message).toMatch(/does not offer/);
    },
  );

  it("answers 404 not_found for an unknown path", async () => {
    const response = await getWithKey(`${gateway().baseURL}/files`, "sk-test-all");
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe("not_found");
  });
});
