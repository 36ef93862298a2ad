import type { z } from "zod";
import { ConfigError } from "../../errors.js";
import { formatPath } from "../expression/index.js";

/** Checks a step's rendered `with:` against what the kind needs; a mismatch names the step and field. */
export function parseStepInput<T extends z.ZodType>(
  schema: T,
  input: Record<string, unknown>,
  key: string,
): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `with.${formatPath(issue.path as Array<string | number>)}: ${issue.message}`,
  );
  throw new ConfigError(
    `Step "${key}" got values it cannot use after its expressions were filled in: ${problems.join("; ")}.`,
    {
      code: "invalid_step_input",
    },
  );
}
