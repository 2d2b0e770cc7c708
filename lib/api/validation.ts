import type { z } from "zod/v4";
import { ApiError, boundedIssues, issueAt, type Issue } from "@/lib/api/errors";
import { MESSAGES } from "@/lib/leads/messages";
import { validate } from "@/lib/leads/schemas";

/**
 * Validates input against a schema; failures become 400 INVALID_INPUT with one
 * issue per offending field, the first MAX_ISSUES of them listed (boundedIssues).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = validate(schema, input);
  if (result.success) return result.data;
  throw new ApiError("INVALID_INPUT", `Invalid ${what}`, boundedIssues(toIssues(result.error.issues)));
}

/**
 * Validates a query string: only the schema's parameter names, each at most once, then the schema; failures are 400
 * INVALID_INPUT. Names are checked here so that "__proto__" is refused however the parsed object treats it.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, request: Request): z.output<S> {
  const params = new URL(request.url).searchParams;
  const times = new Map<string, number>();
  for (const name of params.keys()) times.set(name, (times.get(name) ?? 0) + 1);
  const issues: Issue[] = [...times].flatMap(([name, n]) =>
    n > 1
      ? [issueAt([name], MESSAGES.repeated)]
      : Object.hasOwn(schema.shape, name)
        ? []
        : [issueAt([name], MESSAGES.unknownName)],
  );
  const known = Object.fromEntries([...params].filter(([name]) => Object.hasOwn(schema.shape, name)));
  const result = validate(schema, known);
  // A repeated name is reported as such, not also by the value that won.
  if (!result.success) issues.push(...toIssues(result.error.issues).filter((i) => (times.get(i.path) ?? 0) <= 1));
  if (issues.length) throw new ApiError("INVALID_INPUT", "Invalid query parameters", boundedIssues(issues));
  return result.data as z.output<S>;
}

type PathKey = PropertyKey;

/**
 * zod issues -> {path, message}: paths dot-joined ("" for the whole body), one issue
 * per unknown property, and a union reported through its one branch of the right
 * type (a too-short referrer string says so instead of "invalid input").
 */
export function toIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PathKey[] = []): Issue[] {
  return firstPerPath(typeOnlyWhereWrongType(issues)).flatMap((issue): Issue[] => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => issueAt([...path, key], MESSAGES.unknownName));
    }
    if (issue.code === "invalid_union") {
      const typed = issue.errors.filter((branch) => !isTypeMismatch(branch));
      if (typed.length === 1) return toIssues(typed[0]!, path);
    }
    return [issueAt(path, issue.message)];
  });
}

/** One issue per path: the first check that failed is what to fix; the next may follow from it. */
function firstPerPath(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const seen = new Set<string>();
  return issues.filter(
    (i) => i.code === "unrecognized_keys" || (!seen.has(joinPath(i.path)) && !!seen.add(joinPath(i.path))),
  );
}

function isTypeMismatch(branch: readonly z.core.$ZodIssue[]): boolean {
  const reported = typeOnlyWhereWrongType(branch);
  const [first] = reported;
  return reported.length === 1 && first?.code === "invalid_type" && first.path.length === 0;
}

/**
 * zod 4 runs length checks even on a value of the wrong type (an array has a
 * length, so `[]` for a string also gets "expected array to have >=2 items"):
 * where a path has the wrong type, the type is all there is to say about it.
 */
function typeOnlyWhereWrongType(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const wrongType = new Set(issues.filter((i) => i.code === "invalid_type").map((i) => joinPath(i.path)));
  return issues.filter((i) => i.code === "invalid_type" || !wrongType.has(joinPath(i.path)));
}

function joinPath(path: readonly PathKey[]): string {
  return path.map(String).join(".");
}
