import { readFileSync } from "node:fs";
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

/** What git ignores (.gitignore), as flat-config patterns: a pattern without an inner slash matches at any depth. */
function gitIgnored() {
  return readFileSync(new URL(".gitignore", import.meta.url), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const negation = line.startsWith("!") ? "!" : "";
      const pattern = line.slice(negation.length);
      const inner = pattern.slice(0, -1).includes("/");
      return negation + (inner ? "" : "**/") + pattern.replace(/^\//, "");
    });
}

// Next's recommended rules with typescript-eslint's recommended ones; formatting is Prettier's alone.
export default defineConfig([
  ...nextVitals,
  ...nextTs,
  prettier,
  {
    rules: {
      // Prettier wraps code at 120 characters but not comments: max-len holds comments to the same width.
      "max-len": [
        "error",
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
      // A leading underscore marks a parameter or binding kept for its position; a rest sibling drops fields on
      // purpose.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Prisma 6's prisma-client-js copies its runtime into the generated client, which Next 15 bundles once per entry:
    // in a host on it, the client made by the instrumentation hook takes a route's Prisma.sql fragment in a tagged
    // template for a bound value ($1), not SQL. A whole Prisma.sql statement is read as SQL whichever copy made it.
    files: ["app/**", "lib/**", "instrumentation.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "TaggedTemplateExpression[tag.property.name=/^\\$(queryRaw|executeRaw)$/][quasi.expressions.length>0]",
          message: "Pass $queryRaw/$executeRaw one Prisma.sql`...` statement, not a tagged template with values.",
        },
      ],
    },
  },
  {
    // Generated files are left as their generators write them (.prettierignore), whatever their line lengths.
    files: ["lib/client/openapi.ts", "lib/client/contract.ts", "tests/fixtures/**"],
    rules: { "max-len": "off" },
  },
  {
    // Test bodies are JSON checked against the OpenAPI document at run time (tests/helpers/openapi.ts).
    files: ["tests/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  globalIgnores(gitIgnored(), "what git ignores"),
  globalIgnores([
    "public/**",
    "bench/results/**",
    // create-t3-app's files, linted by the host's own rules in tests/host/host-t3-app.http.test.ts.
    "tests/fixtures/host-t3-app/**",
  ]),
]);
