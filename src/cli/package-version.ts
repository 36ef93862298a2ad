import { packageRoot } from "./package-root.js";

/** The version in svc-flow's package.json, or "unknown" when it cannot be found. */
export function packageVersion(): string {
  return packageRoot()?.version ?? "unknown";
}
