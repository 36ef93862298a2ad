import type { Command, FlagSpec } from "./command.js";

/** Longest line `--help` prints; descriptions wrap under their column. */
export const HELP_WIDTH = 100;
// A flag label longer than this puts its description on the next line.
const LABEL_COLUMN = 26;

function label(name: string, flag: FlagSpec): string {
  const short = flag.short === undefined ? "" : `-${flag.short}, `;
  const value = flag.type === "string" ? ` ${flag.value ?? "VALUE"}` : "";
  return `${short}--${name}${value}${flag.multiple === true ? " ..." : ""}`;
}

/** Words of `text` as lines of at most `width` characters (a longer word keeps its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((part) => part !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** Rows of a label and its text as two indented columns, the text wrapped under its column. */
export function formatColumns(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const column = Math.min(LABEL_COLUMN, Math.max(...rows.map(([text]) => text.length)));
  const indent = " ".repeat(2 + column + 2);
  return rows.flatMap(([text, help]) => {
    const lines = wrap(help, HELP_WIDTH - indent.length);
    if (text.length > column) return [`  ${text}`, ...lines.map((line) => indent + line)];
    return [`  ${text.padEnd(column)}  ${lines[0] ?? ""}`, ...lines.slice(1).map((line) => indent + line)];
  });
}

/** `svc-flow COMMAND --help`: the synopsis, the summary, one line per flag, then the command's notes. */
export function formatCommandHelp(command: Command, summary: string): string {
  const flags: Array<[string, string]> = Object.entries(command.flags).map(([name, flag]) => [
    label(name, flag),
    flag.help,
  ]);
  flags.push(["-h, --help", "Show this help"]);
  const rows = formatColumns(flags);
  const [first, ...others] = command.usage.split("\n");
  const usage = [`Usage: ${first}`, ...others.map((line) => `       ${line}`)];
  const notes = (command.notes ?? []).flatMap((note) => {
    const lead = /^\s*/.exec(note)![0];
    if (note.length <= HELP_WIDTH) return [note.trimEnd()];
    return wrap(note, HELP_WIDTH - lead.length - 2).map((line, index) =>
      index === 0 ? `${lead}${line}` : `${lead}  ${line}`,
    );
  });
  return [
    ...usage,
    "",
    ...wrap(summary, HELP_WIDTH),
    "",
    "Options:",
    ...rows,
    ...(notes.length === 0 ? [] : ["", ...notes]),
    "",
  ].join("\n");
}
