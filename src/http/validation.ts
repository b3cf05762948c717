import type { ValidationError } from "elysia";

/**
 * Turns Elysia's validation error (zod or TypeBox underneath) into one readable sentence that
 * names the field, e.g. `body.threshold: Too big: expected number to be <=1`.
 */
export function describeValidationError(error: ValidationError): string {
  const where = error.type === "body" ? "body" : error.type;
  const issues = safeIssues(error);
  if (issues.length === 0) return `${where}: invalid value`;
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path ? `${where}.${issue.path}` : where;
      return `${path}: ${issue.message}`;
    })
    .join("; ");
}

type Issue = { path: string; message: string };

function safeIssues(error: ValidationError): Issue[] {
  try {
    return error.all.map((entry) => {
      const raw = entry as unknown as { path?: unknown; message?: string; summary?: string };
      return { path: formatPath(raw.path), message: raw.message ?? raw.summary ?? "invalid value" };
    });
  } catch {
    return [];
  }
}

function formatPath(path: unknown): string {
  if (Array.isArray(path)) {
    return path.map((part) => (typeof part === "object" && part !== null && "key" in part ? String((part as { key: unknown }).key) : String(part))).join(".");
  }
  if (typeof path === "string") return path.replace(/^\//, "").replaceAll("/", ".");
  return "";
}

type ZodIssueLike = { path: readonly PropertyKey[]; message: string; code?: string; errors?: readonly (readonly ZodIssueLike[])[] };

/**
 * A union's own message ("must be a string or an array of input items") hides which field is
 * wrong. When exactly one option took the value's type and failed only deeper inside it, that
 * option's issues are the ones to report: `body.input.1.role: …`.
 */
function unwrapUnions(issues: readonly ZodIssueLike[]): ZodIssueLike[] {
  return issues.flatMap((issue) => {
    const deeper = issue.code === "invalid_union" ? (issue.errors ?? []).filter((option) => option.length > 0 && option.every((inner) => inner.path.length > 0)) : [];
    return deeper.length === 1 ? unwrapUnions(deeper[0]!).map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })) : [issue];
  });
}

/** The same one-sentence format for zod errors raised outside Elysia's validation. */
export function describeZodIssues(where: string, issues: readonly ZodIssueLike[]): string {
  return unwrapUnions(issues)
    .slice(0, 5)
    .map((issue) => `${[where, ...issue.path.map(String)].join(".")}: ${issue.message}`)
    .join("; ");
}
