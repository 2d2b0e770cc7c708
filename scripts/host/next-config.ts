// The host's next.config edited on TypeScript's syntax tree (scripts/host/install.ts), so its own text and formatting
// stay as they are.
import ts from "typescript";

/**
 * The config text with `packages` added to `serverExternalPackages` (the property created when missing); null when
 * it lists them all already, undefined when the config is not an object literal that `export default` names,
 * directly or through a variable, with an array there.
 */
export function withServerExternalPackages(
  text: string,
  fileName: string,
  packages: string[],
): string | null | undefined {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const config = configObject(source);
  if (!config) return undefined;
  const property = config.properties.find(
    (p): p is ts.PropertyAssignment =>
      ts.isPropertyAssignment(p) && p.name.getText(source) === "serverExternalPackages",
  );
  if (!property) {
    const at = config.getStart(source) + 1;
    const list = JSON.stringify(packages).replace(/,/g, ", ");
    return `${text.slice(0, at)}\n  serverExternalPackages: ${list},${text.slice(at)}`;
  }
  if (!ts.isArrayLiteralExpression(property.initializer)) return undefined;
  const elements = property.initializer.elements;
  const present = elements.filter(ts.isStringLiteral).map((e) => e.text);
  const missing = packages.filter((p) => !present.includes(p));
  if (!missing.length) return null;
  // After the last element, before any trailing comma, so the array gains no hole.
  const last = elements.at(-1);
  const at = last ? last.end : elements.pos;
  return `${text.slice(0, at)}${last ? ", " : ""}${missing.map((m) => JSON.stringify(m)).join(", ")}${text.slice(at)}`;
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
