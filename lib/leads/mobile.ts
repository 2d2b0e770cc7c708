/** Characters a mobile number may be written with: digits, a leading +, spaces, ( ) . - */
export const MOBILE_INPUT_PATTERN = /^\+?[0-9 ().-]+$/;

const CANONICAL_MOBILE = /^60\d{9,11}$/;

/**
 * Spec rule 2 (with decisions.md 1): strip formatting, then a leading 0 becomes 60
 * ("012…" -> "6012…"), a leading 1 gets 60 in front ("12…" -> "6012…"), a leading
 * "60" stays; "+" is accepted only as "+60". Returns null when the result is not
 * 60 followed by 9 to 11 digits.
 */
export function normaliseMobile(input: string): string | null {
  const written = input.trim();
  if (!MOBILE_INPUT_PATTERN.test(written)) return null;
  const digits = written.replace(/\D/g, "");
  let canonical: string;
  if (written.startsWith("+") || digits.startsWith("60")) canonical = digits;
  else if (digits.startsWith("0")) canonical = `6${digits}`;
  else if (digits.startsWith("1")) canonical = `60${digits}`;
  else return null;
  return CANONICAL_MOBILE.test(canonical) ? canonical : null;
}

const F = "[ ().-]*"; // formatting between digits
const digits = (min: number, max: number) => `(?:[0-9]${F}){${min},${max}}`;

/**
 * The same rule as one JSON Schema pattern (ECMA-262) over the value as sent, for
 * the OpenAPI document: white space around it, then at most 40 characters that are
 * +60, 60 or 0 followed by 9 to 11 digits, or 1 followed by 8 to 10 digits, with
 * formatting anywhere after the +. tests/docs/document-matches-server.unit.test.ts
 * checks it against normaliseMobile and the 6-to-40 length check.
 */
export const MOBILE_PATTERN =
  String.raw`^\s*(?=\S[\s\S]{4,38}\S\s*$)` +
  `(?:\\+?${F}6${F}0${F}${digits(9, 11)}|${F}0${F}${digits(9, 11)}|${F}1${F}${digits(8, 10)})` +
  String.raw`\s*$`;
