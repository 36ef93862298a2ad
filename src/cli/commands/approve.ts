import { resolve } from "node:path";
import { runIo } from "../run-io.js";
import { recordApproval, type ApprovalAnswer } from "../../workflow/approval/record-approval.js";
import { approveOnWorkers, distributedRunId } from "../distributed-run.js";
import { resumeWorkflow } from "../compose-run.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { parseCommandArgs, wholeNumberFlag } from "../parse-args.js";
import { describeDecision, reportRunResult } from "../report-run-result.js";
import { shellWord } from "../../workflow/shell-word.js";

const FLAGS = {
  reject: { type: "boolean", help: "Answer no (default: approve)" },
  note: { type: "string", value: "TEXT", help: "A note kept with the decision" },
  input: { type: "string", value: "JSON", help: "The reply the step asks for, as JSON (its reply schema)" },
  item: { type: "string", value: "N", help: "The map item the decision is for (each item waits for its own)" },
  "no-resume": { type: "boolean", help: "Record the decision without resuming the run" },
  redis: { type: "string", value: "URL", help: "A distributed run's Redis (the --redis it was run with)" },
} as const satisfies FlagSpecs;

/** `svc-flow approve RUN_DIR STEP_ID [--reject] [--note TEXT] [--input JSON] [--item N] [--no-resume] [--redis URL]`: answers an approval step and resumes the run (a distributed run's item goes back to its workers). */
export const approveCommand: Command = {
  usage: "svc-flow approve RUN_DIR STEP_ID [options]",
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length !== 2)
      throw new UsageError(
        "Name the run directory and the approval step, e.g. svc-flow approve runs/sign-off sign-off.",
      );
    const runDir = resolve(context.cwd, positionals[0]!);
    const item = wholeNumberFlag("item", values.item, { min: 0 });
    const answer: ApprovalAnswer = {
      step: positionals[1]!,
      ...(item === undefined ? {} : { item }),
      approved: values.reject !== true,
      ...(values.note === undefined ? {} : { note: values.note }),
      ...(values.input === undefined ? {} : { input: parseInput(values.input) }),
      ...(context.env.SVC_FLOW_USER ? { by: context.env.SVC_FLOW_USER } : {}),
    };
    if ((await distributedRunId(runDir)) !== undefined) {
      if (values.redis === undefined)
        throw new UsageError(
          `${positionals[0]} is a distributed run: its items wait in Redis. Pass --redis URL (the one it was run with).`,
        );
      return approveOnWorkers(context, runDir, answer, {
        redisURL: values.redis,
        resume: values["no-resume"] !== true,
      });
    }
    const decision = await recordApproval(runDir, answer);
    context.stderr.write(`${describeDecision(decision)}.\n`);
    if (values["no-resume"] === true) {
      context.stdout.write(`Recorded. Continue the run with: svc-flow resume ${shellWord(positionals[0]!)}\n`);
      return 0;
    }
    const result = await resumeWorkflow(runDir, {
      ...runIo(context),
    });
    return reportRunResult(result, context);
  },
};

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // The reply fills the step's input: schema; a note for the record goes in --note.
    throw new UsageError(
      `Expected --input to be the JSON reply the step asks for, e.g. '{"copies": 200}' (a note goes in --note): ${(error as Error).message}.`,
    );
  }
}
