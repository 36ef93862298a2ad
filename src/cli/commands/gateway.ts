import { once } from "node:events";
import { resolve } from "node:path";
import { DEMO_KEY, DIALECT_NAMES, loadGatewayConfig, startLocalGateway } from "../../server/index.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { numberFlag, parseCommandArgs } from "../parse-args.js";

/** Port `svc-flow gateway` listens on without --port. */
export const DEFAULT_GATEWAY_PORT = 8787;

const FLAGS = {
  port: { type: "string", value: "N", help: `Port on 127.0.0.1; 0 picks a free one; default: ${DEFAULT_GATEWAY_PORT}` },
  config: {
    type: "string",
    value: "FILE",
    help: "Gateway config (YAML or JSON): keys, quotas, prices, faults, music, dialect",
  },
  dialect: { type: "string", value: "NAME", help: "Speak a relay's dialect (overrides the config's dialect:)" },
} as const satisfies FlagSpecs;

/** `svc-flow gateway [--port N] [--config FILE] [--dialect NAME]`: serves the local gateway until stopped. */
export const gatewayCommand: Command = {
  usage: "svc-flow gateway [options]",
  flags: FLAGS,
  notes: [
    `Dialects: ${DIALECT_NAMES.join(", ")}.`,
    "It prints one stdout line with its base URL; point SVC_BASE_URL there. Ctrl-C stops it.",
  ],
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    const port = numberFlag("port", values.port, { min: 0 }) ?? DEFAULT_GATEWAY_PORT;
    if (!Number.isInteger(port) || port > 65_535)
      throw new UsageError(`Expected --port to be an integer 0..65535, got "${values.port}".`);
    const dialect = values.dialect;
    if (dialect !== undefined && !(DIALECT_NAMES as string[]).includes(dialect)) {
      throw new UsageError(`Unknown dialect "${dialect}" for --dialect. Known dialects: ${DIALECT_NAMES.join(", ")}.`);
    }
    const loaded =
      values.config === undefined ? undefined : await loadGatewayConfig(resolve(context.cwd, values.config));
    // --dialect overrides the config file's `dialect:`.
    const config = dialect === undefined ? loaded : { ...loaded, dialect: dialect as (typeof DIALECT_NAMES)[number] };
    let gateway;
    try {
      gateway = await startLocalGateway({ port, ...(config ? { config } : {}) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
      context.stderr.write(`svc-flow gateway: port ${port} is in use. Pass --port N, or --port 0 for a free port.\n`);
      return 1;
    }
    context.stdout.write(`svc-flow gateway listening on ${gateway.baseURL}\n`);
    const setting = gateway.config.dialect;
    if (setting !== "clean")
      context.stderr.write(
        `Speaking the ${typeof setting === "string" ? setting : JSON.stringify(setting)} dialect.\n`,
      );
    const keys = gateway.config.keys;
    context.stderr.write(
      keys
        ? `${keys.length} key(s) configured; music root ${gateway.rootURL}/musicapi/api/. Ctrl-C stops.\n`
        : `No keys configured: use the demo key ${DEMO_KEY}. Music root ${gateway.rootURL}/musicapi/api/. Ctrl-C stops.\n`,
    );
    if (!context.signal.aborted) await once(context.signal, "abort");
    await gateway.close();
    return 0;
  },
};
