import { z } from "zod/v4";

/**
 * In a body, any character PostgreSQL text can store (lib/api/body.ts refuses U+0000 and unpaired surrogates), and one
 * that is not white space.
 */
const CHAR = String.raw`[^\u0000\ud800-\udfff]`;
const EDGE = String.raw`[^\s\u0000\ud800-\udfff]`;
export const STORABLE = "U+0000 and unpaired surrogates are refused.";
const BODY_TEXT = [CHAR, EDGE];
/**
 * A query value is decoded UTF-8 (no unpaired surrogate can arrive), and U+0000 in it is no error: it names nothing.
 */
export const QUERY_TEXT = [String.raw`[\s\S]`, String.raw`\S`];

/**
 * JSON Schema pattern (ECMA-262, where `\s` is exactly what String.prototype.trim
 * removes) of a text of min..max characters after trimming: minLength/maxLength
 * would count the white space around it, which the server drops first.
 */
export function trimmed(min: number, max: number, [char, edge] = BODY_TEXT): string {
  const inner = `(?:${char}{0,${max - 2}}${edge})?`;
  const core =
    min >= 2 ? `${edge}${char}{${min - 2},${max - 2}}${edge}` : min === 1 ? `${edge}${inner}` : `(?:${edge}${inner})?`;
  return String.raw`^\s*${core}\s*$`;
}

/** Text, trimmed, then min..max characters (code points, as zod and PostgreSQL count them). */
export const text = (min: number, max: number, description: string) =>
  z
    .string()
    .trim()
    .min(min)
    .max(max)
    .meta({
      pattern: trimmed(min, max),
      maxLength: undefined,
      description: `${description} Trimmed; ${min ? `${min} to ${max}` : `at most ${max}`} characters after trimming. ${STORABLE}`,
    });
