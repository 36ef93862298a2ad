export type {
  ArrayNode,
  BinaryNode,
  BinaryOperator,
  CallNode,
  ConditionalNode,
  ExpressionNode,
  IdentifierNode,
  LiteralNode,
  MemberNode,
  ParsedExpression,
  UnaryNode,
  UnaryOperator,
} from "./ast.js";
export { checkReferences } from "./check-references.js";
export type { ReferenceContext, StepIds } from "./check-references.js";
export { collectReferences, referencedStepId, referencedStepIds, referencesOf } from "./collect-references.js";
export type { Reference } from "./collect-references.js";
export { evaluateExpression } from "./evaluate-expression.js";
export type { ExpressionScope } from "./evaluate-expression.js";
export { ExpressionError, formatPath } from "./expression-error.js";
export type { ExpressionErrorCode, ExpressionErrorOptions, ValuePath } from "./expression-error.js";
export { expressionFunctions } from "./expression-functions.js";
export type { ExpressionFunction } from "./expression-functions.js";
export { parseExpression } from "./parse-expression.js";
export type { ExpressionRange } from "./parse-expression.js";
export { hasExpression, parseTemplate } from "./parse-template.js";
export type { Template, TemplatePart } from "./parse-template.js";
export { renderValue } from "./render-value.js";
export { identifierPattern, memberNamePattern } from "./tokenize.js";
export { isTruthy, stringifyValue, valuesEqual } from "./value-semantics.js";
