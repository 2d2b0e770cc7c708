/** Characters a mobile number may be written with: digits, a leading +, spaces, ( ) . - */
export const MOBILE_INPUT_PATTERN = /^\+?[0-9 ().-]+$/;

const CANONICAL_MOBILE = /^60\d{9,11}$/;

/**
 * Spec rule 2 (decisions.md 1): a leading 0 becomes 60, a leading 1 gets 60 in front, "+" only as "+60"; null
 * unless the result is 60 and 9 to 11 digits.
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
 * The same rule as one JSON Schema pattern over the value as sent, for the OpenAPI document;
 * tests/docs/document-matches-server.unit.test.ts checks it against normaliseMobile.
 */
export const MOBILE_PATTERN =
  String.raw`^\s*(?=\S[\s\S]{4,38}\S\s*$)` +
  `(?:\\+?${F}6${F}0${F}${digits(9, 11)}|${F}0${F}${digits(9, 11)}|${F}1${F}${digits(8, 10)})` +
  String.raw`\s*$`;
