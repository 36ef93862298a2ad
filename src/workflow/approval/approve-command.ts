import { shellWord } from "../shell-word.js";

/** `svc-flow approve RUN_DIR STEP_ID [--item N]` for a step instance key (`check`, `posters[2].check`), pasteable into a shell. */
export function approveCommand(runDir: string, key: string): string {
  const dir = shellWord(runDir);
  const item = /^[\w-]+\[(\d+)\]\.([\w-]+)$/.exec(key);
  if (item !== null) return `svc-flow approve ${dir} ${item[2]} --item ${item[1]}`;
  return `svc-flow approve ${dir} ${shellWord(key)}`;
}
