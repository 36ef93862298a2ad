import { describe, expect, it } from "vitest";
import { RowStates } from "../src/workflow/batch/row-states.js";

describe("RowStates", () => {
  it("counts done and failed rows, a failed row that is done later counting as done only", () => {
    const states = new RowStates();
    states.set(3, "failed");
    states.set(5000, "done");
    states.set(3, "done");
    states.set(7, "failed");
    expect([states.doneCount, states.failedCount]).toEqual([2, 1]);
    expect([states.isDone(3), states.isDone(5000), states.isDone(7), states.isDone(100_000)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it("keeps a done row done when a failure is recorded for it after", () => {
    const states = new RowStates();
    states.set(0, "done");
    states.set(0, "failed");
    expect([states.isDone(0), states.doneCount, states.failedCount]).toEqual([true, 1, 0]);
  });
});
