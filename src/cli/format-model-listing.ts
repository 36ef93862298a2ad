import { formatTable } from "./format-table.js";
import type { KeyModels, ListedPrice, ModelListing } from "./model-listing.js";

/** The models as aligned tables for people: what the key may call, then (with --all) what it may not. */
export function formatModelListing(listing: KeyModels): string {
  const lines = [table(listing.models)];
  const unknown = listing.models.filter((model) => model.catalogueId === undefined);
  if (unknown.length > 0) {
    lines.push(
      "",
      `${unknown.length} model${unknown.length === 1 ? "" : "s"} the key lists ${unknown.length === 1 ? "is" : "are"} not in svc-flow's catalogue: ${unknown.map((model) => model.id).join(", ")}. ` +
        "ChatGateway refuses ids it does not know; call them with GatewayClient.",
    );
  }
  if (listing.unavailable.length > 0)
    lines.push("", "In the catalogue but not available to this key:", table(listing.unavailable));
  const unpriced = listing.models.filter((model) => model.price.kind === "unpriced").length;
  if (unpriced > 0)
    lines.push(
      "",
      `Unpriced models have no published price: costs count their tokens and say "unpriced". Give prices in a price file (--prices FILE).`,
    );
  return lines.join("\n");
}

function table(models: readonly ModelListing[]): string {
  const rows = models.map((model) => [
    model.id,
    model.family,
    model.tier ?? "?",
    model.contextWindow === undefined ? (model.catalogueId === undefined ? "?" : "-") : tokens(model.contextWindow),
    model.catalogueId === undefined ? "?" : model.capabilities.join(",") || "text",
    priceText(model.price),
    model.rules.join("; "),
  ]);
  return formatTable(["MODEL", "FAMILY", "TIER", "CONTEXT", "CAPABILITIES", "PRICE", "RULES"], rows, [3]);
}

/** A price as people read it: tokens per 1K in/out, per image, or "unpriced". */
export function priceText(price: ListedPrice): string {
  const mark = (source: string) => (source === "override" ? " (your price)" : "");
  switch (price.kind) {
    case "tokens":
      return `¥${price.inputPer1K} in / ¥${price.outputPer1K} out per 1K${mark(price.source)}`;
    case "image":
      return `¥${price.yuan} per image${mark(price.source)}`;
    case "unpriced":
      return "unpriced";
  }
}

function tokens(count: number): string {
  return count >= 1_000_000 && count % 1_000_000 === 0 ? `${count / 1_000_000}M` : `${Math.round(count / 1000)}K`;
}
