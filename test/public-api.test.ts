import { describe, expect, it } from "vitest";
import * as api from "svc-flow";

describe("the public API", () => {
  it.each([
    "ChatGateway",
    "GatewayClient",
    "callChat",
    "MusicClient",
    "CostLedger",
    "loadWorkflow",
    "runWorkflow",
    "resumeWorkflow",
    "rerunWorkflow",
    "startLocalGateway",
    "SvcFlowError",
    "BudgetExceededError",
    "EmptyOutputError",
  ])("exports %s from the package name", (name) => {
    expect(api[name as keyof typeof api]).toBeTypeOf("function");
  });

  it("exposes the catalogue's getModel and listModels", () => {
    expect(api.catalog.getModel("beta-5").rules.outputLimitField).toBe("max_completion_tokens");
    expect(api.catalog.listModels().length).toBeGreaterThan(0);
  });

  it("gives every error class a stable code", () => {
    expect(new api.BudgetExceededError("over").code).toBe("budget_exceeded");
    expect(new api.KeyDeactivatedError("spent").code).toBe("key_deactivated");
  });
});
