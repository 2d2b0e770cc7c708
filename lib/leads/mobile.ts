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
