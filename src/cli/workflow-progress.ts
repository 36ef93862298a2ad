import type { Writable } from "node:stream";
import { formatYuan } from "../cost/format-summary-table.js";
import type { WorkflowEvent } from "../workflow/workflow-event.js";
import { describeEvent, formatSeconds } from "./describe-event.js";
import { OutputClosedError } from "./interrupted.js";
import { terminalStyle } from "./terminal-style.js";

/** Options of `progressPrinter`. */
export interface ProgressOptions {
  /** For NO_COLOR and TERM. Default: none set (colour on a TTY). */
  readonly env?: NodeJS.ProcessEnv;
  /** The run's signal: once it aborts (Ctrl-C) the view says so and leaves out the steps the stop cut short. */
  readonly signal?: AbortSignal;
  /** How often the status lines redraw (elapsed times, ETA, retry countdowns). Default 250 ms. */
  readonly refreshMs?: number;
}

interface MapState {
  readonly id: string;
  done: number;
  failed: number;
  total: number;
  /** Items finished when first seen (a resumed run's earlier ones) and when: the ETA counts from there. */
  readonly doneAtStart: number;
  readonly startedAt: number;
}

const CONTAINERS = new Set(["map", "parallel"]);
// Plain lines report a long map every tenth of the way.
const PLAIN_STEPS = 10;

/**
 * Renders run progress on `stream`. On a TTY: a line per finished step above a few status lines kept
 * at the bottom (the steps running and for how long, each map's progress with an ETA, retries
 * waiting and their delay, the spend), redrawn in place and cleared at the end; colour unless
 * NO_COLOR. Otherwise (TERM=dumb too): plain lines, one per event, no colour and no cursor movement.
 */
export function progressPrinter(
  stream: Writable & { isTTY?: boolean; columns?: number },
  options: ProgressOptions = {},
): (event: WorkflowEvent) => void {
  // A dumb terminal (Emacs shell, some CI consoles) cannot move the cursor: it gets the plain lines.
  const live = stream.isTTY === true && options.env?.TERM !== "dumb";
  const style = terminalStyle(stream, options.env ?? {});
  const running = new Map<string, { readonly kind: string; readonly startedAt: number }>();
  const maps = new Map<string, MapState>();
  const retries = new Map<string, { readonly until: number; readonly errorCode: string }>();
  const runStartedAt = Date.now();
  let cost = "";
  let shownLines = 0;
  let interrupted = false;
  let timer: ReturnType<typeof setInterval> | undefined;

  const width = () => Math.max(40, (stream.columns ?? 100) - 1);
  const fit = (text: string) => (text.length > width() ? `${text.slice(0, width() - 1)}…` : text);
  const clear = () => {
    if (shownLines === 0) return;
    stream.write(`\r\x1b[2K${"\x1b[1A\x1b[2K".repeat(shownLines - 1)}`);
    shownLines = 0;
  };
  const statusLines = (): string[] => {
    const now = Date.now();
    const lines: string[] = [];
    const steps = [...running]
      .filter(([, step]) => !CONTAINERS.has(step.kind))
      .sort(([, a], [, b]) => a.startedAt - b.startedAt);
    if (steps.length > 0) {
      const names = steps.map(([key, step]) => `${key} ${formatSeconds(now - step.startedAt)}`);
      let text = "";
      for (const [index, name] of names.entries()) {
        const rest = names.length - index - 1;
        const candidate = text === "" ? name : `${text} · ${name}`;
        if (candidate.length + (rest > 0 ? 10 : 0) > width() - 2) {
          text = `${text} · +${names.length - index} more`;
          break;
        }
        text = candidate;
      }
      lines.push(`${style.cyan("▶")} ${text}`);
    }
    for (const [key, map] of maps) lines.push(`  ${fit(mapLine(key, map, now))}`);
    for (const [key, retry] of retries) {
      const left = retry.until - now;
      if (left <= 0) retries.delete(key);
      else lines.push(`  ${style.yellow("↻")} ${fit(`${key} retries in ${formatSeconds(left)} (${retry.errorCode})`)}`);
    }
    lines.push(
      style.dim(
        fit(
          `${cost === "" ? "" : `${cost} · `}${formatSeconds(now - runStartedAt)}${interrupted ? " · interrupted, stopping" : ""}`,
        ),
      ),
    );
    return lines;
  };
  const draw = () => {
    if (!live) return;
    clear();
    const lines = statusLines();
    stream.write(lines.join("\n"));
    shownLines = lines.length;
  };
  const line = (text: string) => {
    clear();
    stream.write(`${text}\n`);
  };

  const onAbort = () => {
    interrupted = true;
    line(
      options.signal?.reason instanceof OutputClosedError
        ? `${style.yellow("■")} Output closed: the steps in flight stop and what finished is journaled.`
        : `${style.yellow("■")} Interrupted: the steps in flight stop and what finished is journaled (Ctrl-C again quits at once).`,
    );
    draw();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });

  return (event) => {
    if (live && timer === undefined && event.type !== "run-finished") {
      timer = setInterval(draw, options.refreshMs ?? 250);
      timer.unref();
    }
    const text = describeEvent(event, style);
    switch (event.type) {
      case "step-started":
        running.set(event.key, { kind: event.kind, startedAt: Date.now() });
        if (!live) line(text!);
        break;
      case "step-finished":
      case "step-skipped":
      case "step-waiting":
        running.delete(event.key);
        retries.delete(event.key);
        maps.delete(event.key);
        line(text!);
        break;
      case "step-failed":
        running.delete(event.key);
        retries.delete(event.key);
        maps.delete(event.key);
        // After Ctrl-C every step in flight fails with the stop; the final line says it once.
        if (!interrupted) line(text!);
        break;
      case "step-retry":
        if (interrupted) break;
        if (event.delayMs !== undefined)
          retries.set(event.key, { until: Date.now() + event.delayMs, errorCode: event.errorCode });
        line(text!);
        break;
      case "map-progress":
        onMapProgress(event);
        break;
      case "cost":
        cost = `${formatYuan(event.spentYuan)}${event.maxYuan === undefined ? "" : ` of ${formatYuan(event.maxYuan)}`}${event.unpriced > 0 ? ` + ${event.unpriced} unpriced` : ""}`;
        break;
      case "run-finished":
        if (timer !== undefined) clearInterval(timer);
        // A stop after the end (its last line into a closed pipe) cut nothing short.
        options.signal?.removeEventListener("abort", onAbort);
        clear();
        return;
      default:
        if (text !== undefined) line(text);
    }
    draw();
  };

  function onMapProgress(event: Extract<WorkflowEvent, { type: "map-progress" }>): void {
    const settled = event.done + event.failed;
    const known = maps.get(event.key);
    const map = known ?? {
      id: event.id,
      done: event.done,
      failed: event.failed,
      total: event.total,
      doneAtStart: settled,
      startedAt: Date.now(),
    };
    const before = known === undefined ? -1 : known.done + known.failed;
    map.done = event.done;
    map.failed = event.failed;
    map.total = event.total;
    maps.set(event.key, map);
    if (settled >= event.total) {
      // A finished map leaves the status lines; its own step line (or this one, for a batch) settles it.
      maps.delete(event.key);
      if (event.key === "items" || !live) line(`${style.green("✓")} ${mapLine(event.key, map, Date.now())}`);
      return;
    }
    const step = Math.max(1, Math.ceil(event.total / PLAIN_STEPS));
    if (!live && (before < 0 || Math.floor(settled / step) > Math.floor(before / step)))
      line(`  ${mapLine(event.key, map, Date.now())}`);
  }
}

/** `posters 3/6 done · 1 failed · ETA 4s`; a batch's rows are `rows`. */
function mapLine(key: string, map: MapState, now: number): string {
  const settled = map.done + map.failed;
  const name = key === "items" ? "rows" : key;
  const parts = [`${name} ${map.done}/${map.total} done`];
  if (map.failed > 0) parts.push(`${map.failed} failed`);
  const finishedHere = settled - map.doneAtStart;
  if (finishedHere > 0 && settled < map.total) {
    const perItemMs = (now - map.startedAt) / finishedHere;
    parts.push(`ETA ${formatSeconds(perItemMs * (map.total - settled))}`);
  }
  return parts.join(" · ");
}
