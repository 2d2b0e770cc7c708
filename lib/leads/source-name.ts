import folds from "@/lib/leads/source-key-folds.json";

/**
 * White space in source names: what JavaScript's trim() and \s remove (ECMAScript's WhiteSpace and
 * LineTerminator), so zod's trim of the referrer and this rule agree. U+0085 is not white space here.
 */
export const WHITE_SPACE =
  "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff";

/**
 * What sourceKey does to single characters: white space to a plain space, each cased letter to its one folded
 * representative. Frozen data, so every Node.js computes the keys the SQL twin does (docs/decisions.md, "The
 * source-name key").
 */
export const SOURCE_KEY_MAP: ReadonlyMap<string, string> = new Map([
  ...[...WHITE_SPACE].map((c) => [c, " "] as const),
  ...[...folds.from].map((c, i) => [c, folds.to.charAt(i)] as const),
]);

const whiteSpaceRuns = new RegExp(`[${WHITE_SPACE}]+`, "g");

/** A source name as stored and shown: trimmed, runs of white space made one space. */
export function cleanSourceName(name: string): string {
  return name.replace(whiteSpaceRuns, " ").replace(/^ | $/g, "");
}

/**
 * The key under which a source name is unique (decisions.md 13): NFC, SOURCE_KEY_MAP, one space per run, trimmed.
 * Its SQL twin lead_intake_source_key is generated from the same map (docs/decisions.md, "The source-name key").
 */
export function sourceKey(name: string): string {
  let key = "";
  for (const c of name.normalize("NFC")) key += SOURCE_KEY_MAP.get(c) ?? c;
  return key.replace(/ {2,}/g, " ").replace(/^ | $/g, "");
}
