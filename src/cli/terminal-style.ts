/** Colours for a terminal, or none: every function returns its text unchanged when colour is off. */
export interface TerminalStyle {
  readonly enabled: boolean;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const paint = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

/**
 * Colour on a terminal only: not when output goes to a file or pipe, not when NO_COLOR is set to
 * anything (no-color.org), not on TERM=dumb. FORCE_COLOR decides first, as in Node and chalk: `0` or
 * `false` is never, any other value (even empty) is always, into a file or pipe too.
 */
export function terminalStyle(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): TerminalStyle {
  const enabled = colourOn(stream, env);
  if (!enabled) {
    const plain = (text: string) => text;
    return { enabled, green: plain, red: plain, yellow: plain, cyan: plain, dim: plain, bold: plain };
  }
  return {
    enabled,
    green: paint(32, 39),
    red: paint(31, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
    dim: paint(2, 22),
    bold: paint(1, 22),
  };
}

/** Whether to colour what goes to `stream` (see terminalStyle). */
export function colourOn(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const forced = env.FORCE_COLOR;
  if (forced !== undefined) return forced !== "0" && forced.toLowerCase() !== "false";
  return stream.isTTY === true && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb";
}
