/** A fragment of one tool call's arguments, as `takeDelta` gives it: the chunk it stands for is
 * `{ choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: text } }] } }] }`
 * with the ids and fields of the chunk before it. */
export class ArgumentsDelta {
  constructor(
    /** The tool call's `index` on the wire. */
    readonly index: number,
    readonly text: string,
  ) {}
}
