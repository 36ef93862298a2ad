import { resolve } from "node:path";
import { mergePrices } from "../../catalog/prices.js";
import { loadPriceFile } from "../../cost/load-price-file.js";
import { GatewayClient } from "../../gateway/gateway-client.js";
import { connectGateway } from "../compose-run.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { formatModelListing } from "../format-model-listing.js";
import { joinModelList } from "../model-listing.js";
import { parseCommandArgs } from "../parse-args.js";

const FLAGS = {
  all: { type: "boolean", help: "Also list catalogue models the key may not call" },
  prices: {
    type: "string",
    value: "FILE",
    help: "Prices (YAML or JSON, in yuan) for models without a published price",
  },
  json: { type: "boolean", help: "Print the listing as JSON" },
} as const satisfies FlagSpecs;

/** `svc-flow models [--all] [--prices FILE] [--json]`: the models the key may call, with catalogue facts and prices. */
export const modelsCommand: Command = {
  usage: "svc-flow models [options]",
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    const prices = mergePrices(
      values.prices === undefined
        ? {}
        : await loadPriceFile(resolve(context.cwd, values.prices), { signal: context.signal }),
    );
    const connection = await connectGateway({ env: context.env, notice: (line) => context.stderr.write(`${line}\n`) });
    const client = new GatewayClient({ apiKey: connection.apiKey, baseURL: connection.baseURL });
    try {
      const { models } = await client.listModels({ signal: context.signal });
      const listing = joinModelList(models, prices, { all: values.all === true });
      if (values.json === true) {
        context.stdout.write(
          `${JSON.stringify(values.all === true ? listing : { models: listing.models }, null, 2)}\n`,
        );
      } else if (listing.models.length === 0) {
        context.stderr.write(
          "The key may call no models. Ask the gateway's operator to grant it some, or use another key.\n",
        );
      } else {
        context.stdout.write(`${formatModelListing(listing)}\n`);
      }
      return 0;
    } finally {
      await client.close();
      await connection.close();
    }
  },
};
