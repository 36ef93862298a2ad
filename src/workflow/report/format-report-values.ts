import type { CostTotals } from "../../cost/summarize-entries.js";
import { formatYuan } from "../../cost/format-summary-table.js";

/** A duration as people read it: `420 ms`, `3.2 s`, `2 min 05 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(Math.floor(seconds % 60)).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** An ISO time shown in UTC without its milliseconds: `2026-11-22 04:37:54 UTC`. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A cost cell: yuan, "unpriced" (never ¥0 for usage without a price), or both when a group mixes them. */
export function formatCost(totals: CostTotals | undefined): string {
  if (totals === undefined || (totals.calls === 0 && totals.refunds === 0)) return "—";
  if (totals.unpricedCalls === 0) return formatYuan(totals.yuan ?? 0);
  if (totals.yuan === null) return "unpriced";
  return `${formatYuan(totals.yuan)} + unpriced`;
}

/** A count with thousands separators. */
export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}
