import { z } from "zod";
import type { ToolContext } from "../../../tools/index.js";

function wholeNumber(unit: string, example: number) {
  const error = `Expected a whole number of ${unit} above 0, e.g. ${example}`;
  return z.int({ error }).min(1, { error });
}

/** The workflow's `tools:` section: settings of the tools its agent, tool and chat steps create. */
export const toolSettingsSchema = z
  .strictObject({
    fetchUrl: z
      .strictObject({
        allowPrivateNetwork: z.boolean({ error: "Expected true or false" }).optional().meta({
          description:
            "Fetch loopback, private and link-local addresses (localhost, 10.x, 192.168.x, 169.254.169.254, ::1, ...), e.g. an intranet page. Default false: they are refused (url_refused).",
        }),
        maxBytes: wholeNumber("bytes", 524_288)
          .optional()
          .meta({ description: "Most body bytes read; a longer body is cut, with a note. Default 262144 (256 KiB)." }),
        timeoutMs: wholeNumber("milliseconds", 30_000)
          .optional()
          .meta({ description: "Time for the whole fetch, redirects and body included. Default 15000." }),
      })
      .optional()
      .meta({ description: "The fetch_url tool." }),
  })
  .meta({
    description: "Settings of the tools that agent, tool and chat steps create; they apply to every such step.",
  });

/** A workflow's `tools:` section as written. */
export type ToolSettings = z.infer<typeof toolSettingsSchema>;

/** The tool options a workflow can set, as `createTools` and an agent's `toolOptions` take them. */
export type WorkflowToolContext = Pick<ToolContext, "fetchMaxBytes" | "fetchTimeoutMs" | "allowPrivateNetwork">;

/** Turns a `tools:` section into tool options; a setting left out keeps the tool's default. */
export function workflowToolContext(settings: ToolSettings | undefined): WorkflowToolContext {
  const fetchUrl = settings?.fetchUrl ?? {};
  return {
    ...(fetchUrl.maxBytes === undefined ? {} : { fetchMaxBytes: fetchUrl.maxBytes }),
    ...(fetchUrl.timeoutMs === undefined ? {} : { fetchTimeoutMs: fetchUrl.timeoutMs }),
    ...(fetchUrl.allowPrivateNetwork === undefined ? {} : { allowPrivateNetwork: fetchUrl.allowPrivateNetwork }),
  };
}
