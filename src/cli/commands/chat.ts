import { relative, resolve } from "node:path";
import { getModel } from "../../catalog/models.js";
import { callChat, type ChatCall, type ChatCallOptions } from "../../chat/call-chat.js";
import type { ChatReply } from "../../chat/chat-reply.js";
import { imagesFromReply } from "../../chat/decode-image-reply.js";
import { GatewayClient } from "../../gateway/gateway-client.js";
import type { Message } from "../../gateway/wire.js";
import { CostLedger } from "../../cost/cost-ledger.js";
import { loadPriceFile } from "../../cost/load-price-file.js";
import { EmptyOutputError } from "../../errors.js";
import { connectGateway } from "../compose-run.js";
import { UsageError, type Command, type CommandContext, type FlagSpecs } from "../command.js";
import { buildChatContent } from "../chat-content.js";
import { costLine } from "../cost-line.js";
import { numberFlag, parseCommandArgs } from "../parse-args.js";
import { prepareFileFlag } from "../path-flags.js";
import { saveImages } from "../save-image.js";

/** Model of `svc-flow chat` without --model: the one with published token prices. */
export const DEFAULT_CHAT_MODEL = "alpha-sonnet-4-6";

const FLAGS = {
  model: { type: "string", value: "M", help: `The model; default: ${DEFAULT_CHAT_MODEL} (svc-flow models lists them)` },
  system: { type: "string", value: "TEXT", help: "A system message before yours" },
  image: {
    type: "string",
    multiple: true,
    value: "FILE",
    help: "Attach an image (path or URL; repeat for more); an image model edits it",
  },
  audio: { type: "string", multiple: true, value: "FILE", help: "Attach audio, mp3 or wav (gamma-2.5-* models)" },
  video: { type: "string", multiple: true, value: "FILE", help: "Attach a video (path or URL)" },
  "max-tokens": { type: "string", value: "N", help: "Most tokens in the reply" },
  temperature: { type: "string", value: "T", help: "Sampling temperature, 0 to 1" },
  out: { type: "string", value: "FILE", help: "Where an image model's picture goes; default: ./image-<sha8>.png" },
  prices: {
    type: "string",
    value: "FILE",
    help: "Prices (YAML or JSON, in yuan) for models without a published price",
  },
  json: { type: "boolean", help: "Print the reply, model and usage as JSON" },
} as const satisfies FlagSpecs;

/** `svc-flow chat "TEXT" [--model M] [--image F]... [--audio F] [--video F]`: one chat turn, streamed to stdout. */
export const chatCommand: Command = {
  usage: 'svc-flow chat "TEXT" [options]',
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    const text = positionals.join(" ").trim();
    if (text === "") throw new UsageError('Give the message in quotes: svc-flow chat "Hello".');
    const maxTokens = numberFlag("max-tokens", values["max-tokens"], { min: 1 });
    if (maxTokens !== undefined && !Number.isInteger(maxTokens))
      throw new UsageError(`Expected --max-tokens to be a whole number, got "${values["max-tokens"]}".`);
    const temperature = numberFlag("temperature", values.temperature, { min: 0 });
    if (temperature !== undefined && temperature > 1)
      throw new UsageError(`Expected --temperature to be from 0 to 1, got "${values.temperature}".`);
    const info = getModel(values.model ?? DEFAULT_CHAT_MODEL);
    if (values.out !== undefined && !info.capabilities.imageGeneration)
      throw new UsageError(`--out is for image models; ${info.id} answers with text. Redirect stdout to save it.`);
    // The picture is paid for before it is written: a place it cannot go is refused first.
    if (values.out !== undefined) await prepareFileFlag("--out", resolve(context.cwd, values.out));
    const content = await buildChatContent(
      text,
      { images: values.image ?? [], audio: values.audio ?? [], video: values.video ?? [] },
      info,
      { cwd: context.cwd, signal: context.signal },
    );
    const messages: Message[] = [
      ...(values.system === undefined ? [] : [{ role: "system" as const, content: values.system }]),
      { role: "user", content },
    ];
    const prices =
      values.prices === undefined
        ? undefined
        : await loadPriceFile(resolve(context.cwd, values.prices), { signal: context.signal });
    const ledger = new CostLedger(prices === undefined ? {} : { prices });

    const connection = await connectGateway({ env: context.env, notice: (line) => context.stderr.write(`${line}\n`) });
    const client = new GatewayClient({ apiKey: connection.apiKey, baseURL: connection.baseURL });
    const call: Omit<ChatCall, "stream"> = {
      model: info.id,
      messages,
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
      ...(temperature === undefined ? {} : { temperature }),
    };
    const options: ChatCallOptions = {
      client,
      ledger,
      signal: context.signal,
      onWarning: (warning) => context.stderr.write(`warning: ${warning.message}\n`),
    };
    try {
      if (info.capabilities.imageGeneration)
        return await drawImage(
          await callChat(call, options),
          client,
          context,
          values.out,
          values.json === true,
          ledger,
        );
      if (values.json === true) {
        const reply = await callChat(call, options);
        context.stdout.write(
          `${JSON.stringify({ ...replyFacts(reply), text: reply.content, cost: ledger.summary() }, null, 2)}\n`,
        );
        return 0;
      }
      let finishReason: string | null = null;
      for await (const event of await callChat({ ...call, stream: true }, options)) {
        if (event.type === "text") context.stdout.write(event.text);
        else if (event.type === "finish") finishReason = event.reply.finishReason;
      }
      context.stdout.write("\n");
      if (finishReason === "length") {
        context.stderr.write(
          `warning: the reply stopped at the output limit${maxTokens === undefined ? "" : ` (--max-tokens ${maxTokens})`}; raise --max-tokens for a longer one\n`,
        );
      }
      return 0;
    } finally {
      if (ledger.entries().length > 0 && values.json !== true) context.stderr.write(`${costLine(ledger)}\n`);
      await client.close();
      await connection.close();
    }
  },
};

async function drawImage(
  reply: ChatReply,
  client: GatewayClient,
  context: CommandContext,
  out: string | undefined,
  json: boolean,
  ledger: CostLedger,
): Promise<number> {
  // A relay may give the image as a link: it is downloaded and saved like an inline one.
  const linked = await Promise.all(reply.imageLinks.map((link) => client.downloadImage(link)));
  const images = [...imagesFromReply(reply.content), ...linked];
  if (images.length === 0)
    throw new EmptyOutputError(`${reply.model} answered without an image. Describe a picture to draw, or try again.`);
  const paths = await saveImages(images, { cwd: context.cwd, ...(out === undefined ? {} : { out }) });
  if (json) {
    context.stdout.write(
      `${JSON.stringify({ ...replyFacts(reply), images: paths, cost: ledger.summary() }, null, 2)}\n`,
    );
    return 0;
  }
  for (const file of paths) context.stdout.write(`${relative(context.cwd, file) || file}\n`);
  return 0;
}

function replyFacts(reply: ChatReply) {
  return {
    model: reply.model,
    servedModel: reply.servedModel,
    finishReason: reply.finishReason,
    requestId: reply.ids.requestId,
    ...(reply.usage === undefined
      ? {}
      : { usage: { promptTokens: reply.usage.prompt_tokens, completionTokens: reply.usage.completion_tokens } }),
  };
}
