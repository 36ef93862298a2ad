/** The `code` of a Node system error (ENOENT, ECONNREFUSED, ...), or undefined. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}
