import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normaliseMobile } from "@/lib/leads/mobile";

// Spec rule 2 and decisions.md 1: formatting characters (spaces, parentheses, dots,
// hyphens) are removed; a leading 0 is replaced by 60, a leading 1 gets 60 in front,
// a leading 60 stays, "+" is allowed only as a leading "+60"; the result must be
// 60 followed by 9 to 11 digits.

const accepted: [input: string, canonical: string][] = [
  // local prefix 0: the 0 becomes 60
  ["0123456789", "60123456789"],
  ["012-345 6789", "60123456789"],
  ["012.345.6789", "60123456789"],
  ["(012) 345-6789", "60123456789"],
  ["0 1 2 3 4 5 6 7 8 9", "60123456789"],
  ["011-2345 6789", "601123456789"],
  ["012345678901", "6012345678901"], // longest: 60 + 11 digits
  // local prefix 1 (no trunk 0): 60 goes in front, the 1 stays
  ["123456789", "60123456789"], // shortest: 60 + 9 digits
  ["12-345 6789", "60123456789"],
  ["11-2345 6789", "601123456789"],
  ["12345678901", "6012345678901"],
  // +60
  ["+60123456789", "60123456789"],
  ["+60 12-345 6789", "60123456789"],
  ["+6011-2345 6789", "601123456789"],
  ["+60 (12) 345.6789", "60123456789"],
  ["+6012345678901", "6012345678901"],
  // 60 without +
  ["60123456789", "60123456789"],
  ["60 12 345 6789", "60123456789"],
  ["6012345678901", "6012345678901"],
  // surrounding white space is trimmed
  ["  012-345 6789  ", "60123456789"],
  ["\t+60123456789\n", "60123456789"],
];

const rejected: [input: string, why: string][] = [
  ["", "empty"],
  ["   ", "blank"],
  ["()-. ", "only formatting characters"],
  ["+", "only a plus"],
  ["+60", "only the country code"],
  // result too short: 60 + 8 digits
  ["012345678", "0-prefix, 60 + 8 digits"],
  ["12345678", "1-prefix, 60 + 8 digits"],
  ["6012345678", "60-prefix, 60 + 8 digits"],
  ["+6012345678", "+60-prefix, 60 + 8 digits"],
  // result too long: 60 + 12 digits
  ["0123456789012", "0-prefix, 60 + 12 digits"],
  ["123456789012", "1-prefix, 60 + 12 digits"],
  ["60123456789012", "60-prefix, 60 + 12 digits"],
  ["+60123456789012", "+60-prefix, 60 + 12 digits"],
  // + not followed by 60
  ["+0123456789", "+ before a local 0"],
  ["+123456789", "+ before a local 1"],
  ["+65 9123 4567", "another country code"],
  ["+6123456789", "+61"],
  // other leading digits
  ["6123456789", "6 not followed by 0"],
  ["9123456789", "leading 9"],
  ["23456789012", "leading 2"],
  ["65912345678", "Singapore number without +"],
  // letters
  ["01234S6789", "letter S for 5"],
  ["O123456789", "letter O for 0"],
  ["0123456789x", "trailing letter"],
  ["tel:0123456789", "scheme prefix"],
  ["012-345 6789 ext 1", "extension"],
  // + anywhere but the start
  ["0123+456789", "+ in the middle"],
  ["60+123456789", "+ after 60"],
  ["0123456789+", "trailing +"],
  ["++60123456789", "double +"],
  [" 0 +60123456789", "+ after a digit"],
  // characters that are not formatting characters
  ["012/345 6789", "slash"],
  ["012_3456789", "underscore"],
  ["012,3456789", "comma"],
  ["012\t3456789", "tab inside"],
  ["#0123456789", "hash"],
  ["０１２３４５６７８９", "full-width digits"],
  ["٠١٢٣٤٥٦٧٨٩", "Arabic-Indic digits"],
];

describe("normaliseMobile", () => {
  it.each(accepted)("accepts %j as %s", (input, canonical) => {
    expect(normaliseMobile(input)).toBe(canonical);
  });

  it.each(rejected)("rejects %j (%s)", (input) => {
    expect(normaliseMobile(input)).toBeNull();
  });

  it("always answers null or 60 followed by 9 to 11 digits", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."0123456789+60 ().-x"), maxLength: 20 }), (input) => {
        const result = normaliseMobile(input);
        expect(result === null || /^60\d{9,11}$/.test(result)).toBe(true);
      }),
    );
  });

  it("gives the same canonical form for 0-, 1-, 60- and +60- writings of one number", () => {
    const formatting = fc.constantFrom("", " ", "-", ".", "(", ")");
    // A subscriber part after the leading 1: 8 to 10 digits, so 60 + 1 + it has 9 to 11 digits.
    const rest = fc.array(fc.constantFrom(..."0123456789"), { minLength: 8, maxLength: 10 }).map((d) => d.join(""));
    const format = (digits: string, seps: string[]) =>
      [...digits].map((d, i) => d + (seps[i % seps.length] ?? "")).join("");
    fc.assert(
      fc.property(rest, fc.array(formatting, { minLength: 1, maxLength: 12 }), (subscriber, seps) => {
        const canonical = `601${subscriber}`;
        for (const written of [`01${subscriber}`, `1${subscriber}`, `601${subscriber}`, `+601${subscriber}`]) {
          const plus = written.startsWith("+") ? "+" : "";
          expect(normaliseMobile(plus + format(written.slice(plus.length), seps))).toBe(canonical);
        }
        expect(normaliseMobile(canonical)).toBe(canonical);
      }),
    );
  });
});
