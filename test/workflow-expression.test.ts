import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, SvcFlowError } from "../src/errors.js";
import {
  checkReferences,
  collectReferences,
  evaluateExpression,
  ExpressionError,
  isTruthy,
  parseExpression,
  parseTemplate,
  referencedStepIds,
  renderValue,
} from "../src/workflow/expression/index.js";

const scope = {
  inputs: { product: "solar lantern", count: 3, photo: "", tags: ["a", "b"], price: "42" },
  steps: { look: { output: { text: "warm light", score: 0.5 } }, ideas: { output: ["Glow", "Shine"] } },
  run: { id: "run-1" },
  tagline: "Light up",
};

function evaluate(text: string): unknown {
  return evaluateExpression(parseExpression(text), scope);
}

function errorOf(action: () => unknown): ExpressionError {
  try {
    action();
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error("expected an ExpressionError, but nothing was thrown");
}

describe("parseExpression and evaluateExpression", () => {
  it.each<[string, unknown]>([
    ["42", 42],
    ["1.5e3", 1500],
    ["'it\\'s'", "it's"],
    ['"tab\\there"', "tab\there"],
    ["'\\u00e9\\u{1F600}'", "é😀"],
    ["true", true],
    ["null", null],
    ["inputs.product", "solar lantern"],
    ["inputs['product']", "solar lantern"],
    ["steps.look.output.text", "warm light"],
    ["steps.ideas.output[1]", "Shine"],
    ["steps.ideas.output.length", 2],
    ["steps.ideas.output[-1]", undefined],
    ["steps.skipped.output.text", undefined],
    ["steps.skipped.output.text ?? 'none'", "none"],
    ["inputs.photo ?? 'none'", ""],
    ["inputs.photo || 'none'", "none"],
    ["inputs.count && inputs.product", "solar lantern"],
    ["!inputs.photo", true],
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["-inputs.count + 10 % 4", -1],
    ["'n=' + inputs.count", "n=3"],
    ["'tags: ' + inputs.tags", 'tags: ["a","b"]'],
    ["'x' + null", "x"],
    ["inputs.count >= 3 && inputs.count < 4", true],
    ["'abc' < 'abd'", true],
    ["inputs.tags == ['a', 'b']", true],
    ["null == steps.skipped", true],
    ["1 == '1'", false],
    ["inputs.photo ? 'photo' : 'no photo'", "no photo"],
    ["true ? 1 : false ? 2 : 3", 1],
    ["[inputs.count, tagline][1]", "Light up"],
    ["steps.make-poster.output", undefined],
    ["inputs.count-1", 2],
    ["length(steps.ideas.output)", 2],
    ["length('héllo😀')", 6],
    ["length(null)", 0],
    ["join(steps.ideas.output, ' / ')", "Glow / Shine"],
    ["join([1, null, 'x'])", "1,,x"],
    ["json(steps.look.output)", '{"text":"warm light","score":0.5}'],
    ["json(steps.skipped)", "null"],
    ["keys(steps.look.output)", ["text", "score"]],
    ["contains(inputs.tags, 'b')", true],
    ["contains(inputs.product, 'lantern')", true],
    ["contains(steps.skipped, 'x')", false],
    ["slice(steps.ideas.output, 0, 1)", ["Glow"]],
    ["slice('lantern', -4)", "tern"],
    ["split('a,b,c', ',')", ["a", "b", "c"]],
    ["upper(tagline)", "LIGHT UP"],
    ["lower(tagline)", "light up"],
    ["trim('  x ')", "x"],
    ["round(1.005, 2)", 1.01],
    ["min(3, 1, 2)", 1],
    ["max([3, 9, 2])", 9],
    ["number(inputs.price) + 1", 43],
  ])("evaluates %s", (text, expected) => {
    expect(evaluate(text)).toEqual(expected);
  });

  it("gives * precedence over + in the tree", () => {
    const { root } = parseExpression("1 + 2 * 3");
    expect(root).toMatchObject({ kind: "binary", operator: "+", right: { kind: "binary", operator: "*" } });
  });

  it("does not evaluate the right side of && || ?? when the left decides", () => {
    expect(evaluate("false && number('x')")).toBe(false);
    expect(evaluate("'set' || number('x')")).toBe("set");
    expect(evaluate("0 ?? number('x')")).toBe(0);
  });

  it("reads only own properties, never the prototype", () => {
    expect(evaluate("inputs.constructor")).toBeUndefined();
    expect(evaluate("inputs['__proto__']")).toBeUndefined();
  });
});

describe("parse errors", () => {
  it.each<[string, number, string]>([
    ["", 1, "Write a value or a path"],
    ["inputs.", 8, 'Expected a property name after "."'],
    ["(1 + 2", 7, 'Expected ")" to close the "(" at column 1'],
    ["[1, 2", 6, 'Expected "," or "]"'],
    ["1 +", 4, 'expected a value after "+"'],
    ["inputs product", 8, "Join values with an operator"],
    ["a === b", 3, 'Write "=="'],
    ["a = b", 3, 'Write "==" to compare'],
    ["a & b", 3, 'Write "&&"'],
    ["steps?.look", 6, 'Write "." instead'],
    ["'open", 1, "Close the string with '"],
    ["'\\q'", 2, "Unknown escape"],
    ["1 < 2 < 3", 7, "Comparisons cannot be chained"],
    ["lenght(x)", 1, 'Did you mean "length"?'],
    ["join()", 1, "Call it as join(array, separator?)."],
    ["inputs.name(1)", 12, "Only the built-in functions can be called"],
    ["a ? b", 6, 'Expected ":"'],
    ["{ a: 1 }", 1, "Object literals are not supported"],
    ["3abc", 2, "names cannot start with a digit"],
    [")", 1, 'Expected a value but found ")"'],
    ["1)", 2, 'Unmatched ")"'],
    ["inputs.名前", 8, 'write other keys in brackets, e.g. inputs["my key"]'],
  ])("rejects %j at column %i", (text, column, fragment) => {
    const error = errorOf(() => parseExpression(text));
    expect(error.code).toBe("invalid_expression");
    expect(error.column).toBe(column);
    expect(error.message).toContain(fragment);
    expect(error.message).toContain(`at column ${column} of`);
  });

  it("refuses nesting that would overflow the stack", () => {
    expect(errorOf(() => parseExpression(`${"(".repeat(5000)}1${")".repeat(5000)}`)).message).toContain("nests deeper");
    expect(errorOf(() => parseExpression(Array(3000).fill("1").join(" + "))).message).toContain("operations deep");
  });

  it("is a ConfigError with a stable code", () => {
    const error = errorOf(() => parseExpression("1 +"));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(SvcFlowError);
    expect(error.name).toBe("ExpressionError");
  });
});

describe("evaluation errors", () => {
  it.each<[string, string]>([
    [
      "input.product",
      'Unknown name "input" at column 1 of "input.product". Did you mean "inputs"? Expressions here can read: inputs, steps, run, tagline.',
    ],
    ["length", "length is a function: call it as length(value)"],
    ["inputs.count > '2'", "Cannot compare a number with a string"],
    ["inputs.count + true", "Cannot add a number and a boolean"],
    ["inputs.count / 0", "Division by zero"],
    ["-inputs.product", "needs a number, but inputs.product is a string"],
    ["steps.ideas.output.text", 'steps.ideas.output is an array; it has no property "text"'],
    ["inputs.count.digits", 'inputs.count is a number; it has no property "digits"'],
    ["inputs[true]", "A boolean cannot be used as a key"],
    ["upper(steps.skipped.output.text)", "Give a default first: upper(x ?? '')"],
    ["number('abc')", 'number() cannot read "abc" as a number'],
    ["max([])", "of an empty array has no answer"],
    ["1e308 * 10", "is not a finite number"],
  ])("fails %s with a message that names the fix", (text, fragment) => {
    const error = errorOf(() => evaluate(text));
    expect(error.code).toBe("expression_failed");
    expect(error.message).toContain(fragment);
  });
});

describe("templates", () => {
  it.each<[string, unknown]>([
    ["${{ steps.ideas.output }}", ["Glow", "Shine"]],
    ["  ${{ inputs.count }}\n", 3],
    ["${{ steps.look.output }}", { text: "warm light", score: 0.5 }],
    ["${{ steps.skipped.output }}", undefined],
    ["Tags: ${{ inputs.tags }}", 'Tags: ["a","b"]'],
    ["[${{ steps.skipped.output }}] [${{ null }}]", "[] []"],
    ["${{ inputs.count }}${{ inputs.count }}", "33"],
    ["${{ '}}' }}", "}}"],
    ["${{ \"a}}b\" + '\\'}}' }}", "a}}b'}}"],
    ["literal ${{ '${{' }} here", "literal ${{ here"],
    ["no expressions at all {{ }}", "no expressions at all {{ }}"],
  ])("renders %j", (text, expected) => {
    expect(renderValue(text, scope)).toEqual(expected);
  });

  it("marks a string that is exactly one expression as single", () => {
    expect(parseTemplate(" ${{ 1 }} ").single).toBeDefined();
    expect(parseTemplate("x ${{ 1 }}").single).toBeUndefined();
  });

  it("reports an unclosed ${{ at its column", () => {
    const error = errorOf(() => parseTemplate("Hi ${{ inputs.product"));
    expect(error.column).toBe(4);
    expect(error.message).toContain("End the expression with }}");
  });

  it("says when an unclosed string swallowed the closing }}", () => {
    expect(errorOf(() => parseTemplate("${{ 'abc }}")).message).toContain(
      "The quote at column 5 starts a string that never ends",
    );
  });

  it("points parse errors at the column in the whole string", () => {
    expect(errorOf(() => parseTemplate("Hello ${{ inputs. }}")).column).toBe(19);
  });

  it("renders nested objects and arrays without touching keys or the input", () => {
    const value = {
      "${{ key }}": { prompt: "For ${{ inputs.product }}", images: ["${{ steps.ideas.output }}", 7, null] },
    };
    const copy = structuredClone(value);
    expect(renderValue(value, scope)).toEqual({
      "${{ key }}": { prompt: "For solar lantern", images: [["Glow", "Shine"], 7, null] },
    });
    expect(value).toEqual(copy);
  });

  it("says where in the value an expression failed", () => {
    const error = errorOf(() => renderValue({ with: { images: ["${{ inputs.count / 0 }}"] } }, scope, ["steps", 1]));
    expect(error.location).toEqual(["steps", 1, "with", "images", 0]);
    expect(error.message).toMatch(/^At steps\[1\]\.with\.images\[0\]: Division by zero/);
  });

  it.each<[unknown, boolean]>([
    ["", false],
    [0, false],
    [null, false],
    [undefined, false],
    ["x", true],
    [[], true],
    [{}, true],
  ])("treats %j as %s in conditions", (value, expected) => {
    expect(isTruthy(value)).toBe(expected);
  });
});

describe("references", () => {
  const step = {
    if: "${{ inputs.photo }}",
    with: {
      prompt: "${{ upper(steps.look.output.text ?? inputs.product) }} ${{ steps.ideas.output[0] }}",
      pick: "${{ steps[inputs.which].output }}",
      item: "${{ tagline }}",
    },
  };

  it("collects every root, literal path and location", () => {
    const found = collectReferences(step, ["steps", 2]).map(({ root, path, dynamic, location }) => ({
      root,
      path,
      dynamic,
      location,
    }));
    const prompt = ["steps", 2, "with", "prompt"];
    expect(found).toEqual([
      { root: "inputs", path: ["photo"], dynamic: false, location: ["steps", 2, "if"] },
      { root: "steps", path: ["look", "output", "text"], dynamic: false, location: prompt },
      { root: "inputs", path: ["product"], dynamic: false, location: prompt },
      { root: "steps", path: ["ideas", "output", 0], dynamic: false, location: prompt },
      { root: "inputs", path: ["which"], dynamic: false, location: ["steps", 2, "with", "pick"] },
      { root: "steps", path: [], dynamic: true, location: ["steps", 2, "with", "pick"] },
      { root: "tagline", path: [], dynamic: false, location: ["steps", 2, "with", "item"] },
    ]);
  });

  it("lists the steps a value depends on, once each", () => {
    const references = collectReferences({
      a: "${{ steps.b.output }} ${{ steps.a.output.x }}",
      c: "${{ steps.b.output }}",
    });
    expect(referencedStepIds(references)).toEqual(["b", "a"]);
  });

  it("reports syntax errors with their location", () => {
    const error = errorOf(() => collectReferences({ with: { prompt: "${{ 1 + }}" } }));
    expect(error.location).toEqual(["with", "prompt"]);
  });

  const context = {
    roots: ["inputs", "steps", "run"],
    inputs: ["product", "photo"],
    steps: new Set(["look"]),
    allSteps: new Set(["look", "me", "later"]),
    currentStep: "me",
    runFields: ["id"],
  };

  it.each<[string, string]>([
    [
      "${{ tagline }}",
      'Unknown name "tagline" at column 5 of "${{ tagline }}". Expressions here can read: inputs, steps, run.',
    ],
    [
      "${{ inputs.prodcut }}",
      'There is no input "prodcut" (inputs.prodcut) at column 5 of "${{ inputs.prodcut }}". Did you mean "product"?',
    ],
    [
      "${{ steps.later.output }}",
      'Step "later" has not run yet at this point (steps.later.output) at column 5 of "${{ steps.later.output }}". Move this step after "later"',
    ],
    ["${{ steps.me.output }}", 'Step "me" cannot read its own output'],
    [
      "${{ steps.lok.output }}",
      'There is no step "lok" (steps.lok.output) at column 5 of "${{ steps.lok.output }}". Did you mean "look"?',
    ],
    [
      "${{ steps.look }}",
      'steps.look names a step, not a value at column 5 of "${{ steps.look }}". Write steps.look.output.',
    ],
    [
      "${{ steps.look.outputs }}",
      'Steps have no field "outputs" (steps.look.outputs) at column 5 of "${{ steps.look.outputs }}". Did you mean "output"?',
    ],
    ["${{ steps[inputs.photo].output }}", "A step must be named literally"],
    ["${{ run.dir }}", 'run has no field "dir"'],
  ])("rejects %s", (text, fragment) => {
    const errors = checkReferences(collectReferences({ prompt: text }), context);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.code).toBe("invalid_reference");
    expect(errors[0]?.location).toEqual(["prompt"]);
    expect(errors[0]?.message).toContain(`At prompt: ${fragment}`);
  });

  it("accepts references that exist and come earlier", () => {
    const value = "${{ steps.look.output.text ?? inputs.product }} ${{ run.id }} ${{ inputs }}";
    expect(checkReferences(collectReferences(value), context)).toEqual([]);
  });
});

describe("properties", () => {
  const withoutExpressions = fc.jsonValue().filter((value) => !JSON.stringify(value).includes("${{"));

  it("renders any JSON value without ${{ to itself", () => {
    fc.assert(
      fc.property(withoutExpressions, (value) => {
        expect(renderValue(value, scope)).toEqual(value);
        expect(collectReferences(value)).toEqual([]);
      }),
    );
  });

  it("round-trips any string through a single- or double-quoted literal", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const single = `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
        expect(renderValue(`\${{ ${single} }}`, scope)).toBe(text);
        expect(renderValue(`\${{ ${JSON.stringify(text)} }}`, scope)).toBe(text);
      }),
    );
  });

  const expressionish = fc.string({
    unit: fc.constantFrom(..."ab1.[]()'\"\\ ?:!=<>&|+-*/%,{}$\n".split(""), "${{", "}}", "steps", "length"),
  });

  it("throws nothing but ExpressionError, with a column inside the text, on arbitrary input", () => {
    fc.assert(
      fc.property(fc.oneof(expressionish, fc.string({ unit: "binary" })), (text) => {
        for (const action of [
          () => parseExpression(text),
          () => parseTemplate(`x \${{ ${text} }}`),
          () => renderValue(text, scope),
        ]) {
          try {
            action();
          } catch (error) {
            expect(error).toBeInstanceOf(ExpressionError);
            const { column, source = "" } = error as ExpressionError;
            expect(column).toBeGreaterThanOrEqual(1);
            expect(column).toBeLessThanOrEqual(source.length + 1);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  // The oracle is JavaScript itself: same precedence, same IEEE arithmetic on the same integers.
  const arithmetic: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.integer({ min: -1000, max: 1000 }).map((value) => (value < 0 ? `(${value})` : `${value}`)),
      fc
        .tuple(tie("node"), fc.constantFrom("+", "-", "*", "/", "%"), tie("node"))
        .map(([left, op, right]) => `${left} ${op} ${right}`),
      tie("node").map((inner) => `(${inner})`),
      tie("node").map((inner) => `-(${inner})`),
    ),
  })).node;

  it("does integer arithmetic exactly as JavaScript does", () => {
    fc.assert(
      fc.property(arithmetic, (text) => {
        const expected: unknown = new Function(`return ${text};`)();
        let actual: unknown;
        try {
          actual = evaluate(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
          const message = (error as ExpressionError).message;
          fc.pre(message.startsWith("Division by zero") || message.includes("is not a finite number"));
          return;
        }
        expect(actual).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
