import { formatNumber } from "./arithmetic.js";

/**
 * An arithmetic expression built from a prompt's numbers when it names an operation but writes
 * none: "launch at 30 yuan; a unit costs 12.5 ... the gross margin in percent" gives
 * `round((30 - 12.5) / 30 * 100, 1)`. Undefined with fewer than two numbers.
 */
export function expressionFromNumbers(text: string, numbers: readonly number[]): string | undefined {
  if (numbers.length < 2) return undefined;
  const lower = text.toLowerCase();
  const [first, second] = [numbers[0]!, numbers[1]!];
  const [high, low] = first >= second ? [first, second] : [second, first];
  const n = (value: number) => formatNumber(value);
  const percent = /\bpercent|%|\bshare\b|\bpercentage\b/.test(lower);
  if (/\bmargin\b|\bprofit\b/.test(lower))
    return percent ? `round((${n(high)} - ${n(low)}) / ${n(high)} * 100, 1)` : `${n(high)} - ${n(low)}`;
  if (/\b(average|mean)\b/.test(lower)) return `(${numbers.map(n).join(" + ")}) / ${numbers.length}`;
  if (/\b(total|sum|together|altogether|combined|in all)\b/.test(lower)) return numbers.map(n).join(" + ");
  if (/\b(difference|change|increase|decrease|more than|less than|gap)\b/.test(lower)) {
    return percent ? `round((${n(second)} - ${n(first)}) / ${n(first)} * 100, 1)` : `${n(first)} - ${n(second)}`;
  }
  if (percent || /\b(ratio)\b/.test(lower)) return `round(${n(low)} / ${n(high)} * 100, 1)`;
  if (/\b(per|each|split|divide|divided)\b/.test(lower)) return `${n(first)} / ${n(second)}`;
  if (/\b(product|times|multiply|multiplied|markup)\b/.test(lower)) return `${n(first)} * ${n(second)}`;
  return numbers.map(n).join(" + ");
}
