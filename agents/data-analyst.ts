import { z } from "zod";
import { defineAgent } from "./support/define-agent.js";

/** The data analyst's final answer: checked against this shape before it is returned. */
export const analysisSchema = z
  .object({
    answer: z.string().describe("The answer to the question, in one to three sentences."),
    figures: z
      .array(z.object({ label: z.string().describe("What the number is"), value: z.number().describe("The number") }))
      .describe("The numbers the answer rests on, each computed with the calculator."),
    sources: z.array(z.string()).describe("The workspace files the figures come from."),
  })
  .meta({
    title: "final_answer",
    description: "Give the final answer of the analysis. Call this once, when the analysis is done.",
  });

/** The analysis the data analyst returns. */
export type Analysis = z.infer<typeof analysisSchema>;

/** Reads CSV and JSON files from the workspace, computes with the calculator and answers in a fixed shape. */
export const dataAnalyst = defineAgent({
  name: "data-analyst",
  description:
    "Reads CSV/JSON files in the workspace, computes with the calculator, answers as { answer, figures, sources }",
  model: "alpha-sonnet-4-6",
  tools: ["list_files", "read_file", "calculator"],
  maxSteps: 12,
  responseFormat: analysisSchema,
  system: [
    "You are a data analyst working on CSV and JSON files in a workspace folder.",
    "Find the files with list_files and read them with read_file; do not guess their contents.",
    "Compute every total, average, share or difference with the calculator, one expression per call.",
    "If a tool reports an error, fix the call and go on.",
    "When you have the numbers, give the final answer with the final_answer tool: the answer, the figures it rests on, and the files they came from.",
  ].join("\n"),
});
