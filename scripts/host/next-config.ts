// The host's next.config edited on TypeScript's syntax tree (scripts/host/install.ts, uninstall.ts), so its own text
// and formatting stay as they are.
import ts from "typescript";

const PROPERTY = "serverExternalPackages";

/**
 * Where the config's serverExternalPackages is, when the text alone tells what the config evaluates to: the object
 * literal that `export default` names (directly or through a variable), with no spread or computed key, and the name
 * written nowhere else in the file but as that object's one plain key holding an array of string literals.
 */
interface Found {
  source: ts.SourceFile;
  config: ts.ObjectLiteralExpression;
  array?: ts.ArrayLiteralExpression;
  property?: ts.PropertyAssignment;
}

function find(text: string, fileName: string): Found | undefined {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const config = configObject(source);
  if (!config) return undefined;
  if (config.properties.some((p) => ts.isSpreadAssignment(p) || (p.name && ts.isComputedPropertyName(p.name))))
    return undefined;
  let mentions = 0;
  const visit = (node: ts.Node) => {
    if ((ts.isIdentifier(node) || ts.isStringLiteralLike(node)) && node.text === PROPERTY) mentions++;
    node.forEachChild(visit);
  };
  visit(source);
  const property = config.properties.find(
    (p): p is ts.PropertyAssignment =>
      ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === PROPERTY,
  );
  if (mentions !== (property ? 1 : 0)) return undefined;
  if (!property) return { source, config };
  const array = property.initializer;
  if (!ts.isArrayLiteralExpression(array) || !array.elements.every(ts.isStringLiteral)) return undefined;
  return { source, config, array, property };
}

const listed = (found: Found) => found.array?.elements.map((e) => (e as ts.StringLiteral).text) ?? [];

/** The packages the config lists in serverExternalPackages ([] when it has none), or undefined when it cannot tell. */
export function serverExternalPackagesOf(text: string, fileName: string): string[] | undefined {
  const found = find(text, fileName);
  return found && listed(found);
}

/**
 * The config text with `packages` added to `serverExternalPackages` (the property created when missing); null when
 * it lists them all already, undefined when the text does not tell what the config evaluates to (see find).
 */
export function withServerExternalPackages(
  text: string,
  fileName: string,
  packages: string[],
): string | null | undefined {
  const found = find(text, fileName);
  if (!found) return undefined;
  const { source, config, array } = found;
  if (!array) {
    const at = config.getStart(source) + 1;
    const list = JSON.stringify(packages).replace(/,/g, ", ");
    return `${text.slice(0, at)}\n  ${PROPERTY}: ${list},${text.slice(at)}`;
  }
  const missing = packages.filter((p) => !listed(found).includes(p));
  if (!missing.length) return null;
  // After the last element, before any trailing comma, so the array gains no hole.
  const last = array.elements.at(-1);
  const at = last ? last.end : array.elements.pos;
  return `${text.slice(0, at)}${last ? ", " : ""}${missing.map((m) => JSON.stringify(m)).join(", ")}${text.slice(at)}`;
}

/**
 * The config text without the `packages` an install added (and the property, when the install created it and it
 * lists nothing else); undefined when the text does not tell what the config evaluates to.
 */
export function withoutServerExternalPackages(
  text: string,
  fileName: string,
  packages: string[],
  created: boolean,
): string | undefined {
  const found = find(text, fileName);
  if (!found) return undefined;
  const { source, array, property } = found;
  if (!array || !property) return text;
  const elements = [...array.elements];
  const removed = elements.map((e) => packages.includes((e as ts.StringLiteral).text));
  if (created && removed.every(Boolean)) {
    // The property with its leading line break and its comma, as the install wrote it.
    const comma = text[property.end] === "," ? 1 : 0;
    return text.slice(0, property.getFullStart()) + text.slice(property.end + comma);
  }
  // Each element with the separator before it; a leading run with the separator after it.
  const firstKept = removed.indexOf(false);
  const ranges: [number, number][] = [];
  if (firstKept === -1 && elements.length) ranges.push([elements[0].getStart(source), elements.at(-1)!.end]);
  else if (firstKept > 0) ranges.push([elements[0].getStart(source), elements[firstKept].getStart(source)]);
  for (let i = firstKept + 1; firstKept !== -1 && i < elements.length; i++)
    if (removed[i]) ranges.push([elements[i - 1].end, elements[i].end]);
  return ranges.reduceRight((out, [from, to]) => out.slice(0, from) + out.slice(to), text);
}

function configObject(source: ts.SourceFile): ts.ObjectLiteralExpression | undefined {
  let exported: ts.Expression | undefined;
  source.forEachChild((node) => {
    if (ts.isExportAssignment(node)) exported = node.expression;
  });
  if (exported && ts.isIdentifier(exported)) {
    const name = exported.text;
    let found: ts.Expression | undefined;
    source.forEachChild((node) => {
      if (!ts.isVariableStatement(node)) return;
      for (const d of node.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.name.text === name) found = d.initializer;
    });
    exported = found;
  }
  while (
    exported &&
    (ts.isSatisfiesExpression(exported) || ts.isAsExpression(exported) || ts.isParenthesizedExpression(exported))
  ) {
    exported = exported.expression;
  }
  return exported && ts.isObjectLiteralExpression(exported) ? exported : undefined;
}
