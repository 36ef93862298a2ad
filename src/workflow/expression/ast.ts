/** Operators of binary nodes; `&&`, `||` and `??` short-circuit. */
export type BinaryOperator = "*" | "/" | "%" | "+" | "-" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||" | "??";

/** Operators of unary nodes. */
export type UnaryOperator = "!" | "-";

interface Span {
  /** 0-based offset of the node's first character in the parsed source. */
  readonly start: number;
  /** 0-based offset just past the node's last character. */
  readonly end: number;
}

/** A literal: number, string, boolean or null. */
export interface LiteralNode extends Span {
  readonly kind: "literal";
  readonly value: string | number | boolean | null;
}

/** A root name: `inputs`, `steps`, `run` or the map variable. */
export interface IdentifierNode extends Span {
  readonly kind: "identifier";
  readonly name: string;
}

/** `object.name` (property is a string literal) or `object[expression]`. */
export interface MemberNode extends Span {
  readonly kind: "member";
  readonly object: ExpressionNode;
  readonly property: ExpressionNode;
  readonly computed: boolean;
}

/** `!operand` or `-operand`. */
export interface UnaryNode extends Span {
  readonly kind: "unary";
  readonly operator: UnaryOperator;
  readonly operand: ExpressionNode;
}

/** `left operator right`. */
export interface BinaryNode extends Span {
  readonly kind: "binary";
  readonly operator: BinaryOperator;
  readonly left: ExpressionNode;
  readonly right: ExpressionNode;
}

/** `test ? consequent : alternate`. */
export interface ConditionalNode extends Span {
  readonly kind: "conditional";
  readonly test: ExpressionNode;
  readonly consequent: ExpressionNode;
  readonly alternate: ExpressionNode;
}

/** `[a, b, c]`. */
export interface ArrayNode extends Span {
  readonly kind: "array";
  readonly elements: readonly ExpressionNode[];
}

/** A call of a built-in function: `length(x)`. */
export interface CallNode extends Span {
  readonly kind: "call";
  readonly callee: string;
  readonly args: readonly ExpressionNode[];
}

/** Any node of an expression tree. */
export type ExpressionNode =
  | LiteralNode
  | IdentifierNode
  | MemberNode
  | UnaryNode
  | BinaryNode
  | ConditionalNode
  | ArrayNode
  | CallNode;

/** A parsed expression with the text it came from, so errors can quote and point into it. */
export interface ParsedExpression {
  /** The parsed text: the expression itself, or the whole template string it sits in. */
  readonly source: string;
  /** 0-based offset where the expression text starts in `source`. */
  readonly start: number;
  /** 0-based offset where the expression text ends in `source`. */
  readonly end: number;
  readonly root: ExpressionNode;
}

/** The direct children of a node, left to right. */
export function childrenOf(node: ExpressionNode): readonly ExpressionNode[] {
  switch (node.kind) {
    case "literal":
    case "identifier":
      return [];
    case "member":
      return [node.object, node.property];
    case "unary":
      return [node.operand];
    case "binary":
      return [node.left, node.right];
    case "conditional":
      return [node.test, node.consequent, node.alternate];
    case "array":
      return node.elements;
    case "call":
      return node.args;
  }
}

/** The depth of a tree, measured without recursion so that any input is safe to measure. */
export function treeDepth(root: ExpressionNode): number {
  let deepest = 0;
  const pending: Array<[ExpressionNode, number]> = [[root, 1]];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const [node, depth] = entry;
    deepest = Math.max(deepest, depth);
    for (const child of childrenOf(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}
