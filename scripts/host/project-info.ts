// What `host:install` reads of a host before it changes anything (docs/host-guide.md, "Host shapes"): where its
// source lives and by which alias, its Prisma schema and client, its package manager, the versions it runs on, and
// its own request gate. Each answer comes from the host's files the way Next, TypeScript and Prisma read them.
import { lstatSync } from "node:fs";
import path from "node:path";
import { getSchema } from "@mrleebo/prisma-ast";
import ts from "typescript";
import { refuse, type HostFolder } from "./host-folder";
import { installedVersion, rangeFloor, resolvedVersion } from "./installed-version";
import { workspaceFolders } from "./workspace";

export type PackageManager = "npm" | "pnpm";

export interface PrismaClientInfo {
  provider: "prisma-client" | "prisma-client-js";
  /** The generator's previewFeatures. */
  previewFeatures?: string[];
  /** The generated client's folder, relative to the host; undefined: prisma-client-js's default, `@prisma/client`. */
  output?: string;
}

export interface HostProject {
  /** The alias the host's tsconfig maps to its source root, e.g. `@` for `"@/*": ["./src/*"]`. */
  alias: string;
  /** Where `app/` is, and so where the module's sources go: "" or "src/". */
  sourceRoot: "" | "src/";
  /**
   * The workspace package that holds the schema and generates the client, where that is not the app: its name and
   * folder (`../../packages/db`). Every path of the schema's below is relative to the app all the same.
   */
  schemaPackage?: { name: string; folder: string };
  /** The host's Prisma schema files (host-relative); none when the host has no schema yet. */
  schemaFiles: string[];
  /** The folder of a schema split into several files (prisma/schema/), where new models go into a file of their own. */
  schemaFolder?: string;
  /** prisma.config.ts, where the host has one. */
  prismaConfig?: string;
  /** The folder of the host's migrations, where the module's go too. */
  migrations: string;
  client?: PrismaClientInfo;
  packageManager: PackageManager;
  majors: { next: number; prisma?: number; prismaMinor?: number; zod?: { major: number; minor: number } };
  /** The host's own proxy.ts or middleware.ts, which the install leaves alone. */
  gate?: string;
}

/** The versions the module is tested with (docs/host-guide.md, "Host shapes"). */
export const SUPPORTED = { next: [15, 16], prisma: [6, 7] } as const;

/** The files where Next runs a host's own code before every route (proxy.ts from Next 16, middleware.ts before). */
const GATE_NAMES = ["proxy.ts", "proxy.js", "middleware.ts", "middleware.js"];
const CONFIG_NAMES = ["prisma.config.ts", "prisma.config.mts", "prisma.config.js", "prisma.config.mjs"];

type Manifest = Record<string, unknown> & {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  prisma?: { schema?: unknown };
};

/** Reads the host; refuses, in one sentence, a shape or a version the module does not support. */
export function readHostProject(host: HostFolder): HostProject {
  const manifest = readJson<Manifest>(host, "package.json");
  const sourceRoot = sourceRootOf(host);
  const alias = aliasOf(host, sourceRoot);
  const home = schemaHomeOf(host, manifest);
  const schema = home.schema;
  const schemaTexts = schema.files.map((file) => host.readText(file) ?? "");
  const migrations = migrationsOf(home, schemaTexts);
  const client = clientOf(schemaTexts, schema.files);
  const majors = majorsOf(host, manifest, home);
  // The module's @prisma/adapter-pg needs driver adapters, a preview feature of Prisma 6 before 6.16.
  if (majors.prisma === 6 && (majors.prismaMinor ?? 0) < 16 && !client?.previewFeatures?.includes("driverAdapters"))
    refuse(
      `the host runs Prisma 6.${majors.prismaMinor ?? 0}, where the module's driver adapter is a preview feature: ` +
        `add previewFeatures = ["driverAdapters"] to the generator of ${schema.files[0] ?? "prisma/schema.prisma"}, ` +
        "or raise prisma and @prisma/client to ^6.16.0",
    );
  return {
    alias,
    sourceRoot,
    schemaPackage: home.package,
    schemaFiles: schema.files,
    schemaFolder: schema.folder,
    prismaConfig: home.prismaConfig,
    migrations,
    client,
    packageManager: packageManagerOf(host),
    majors,
    // Only named, never read: a gate that is a link, even to nothing, is the host's to keep.
    gate: [sourceRoot, ""]
      .flatMap((root) => GATE_NAMES.map((name) => `${root}${name}`))
      .find((file) => lstatSync(path.join(host.root, file), { throwIfNoEntry: false }) !== undefined),
  };
}

/** The host's folder of migrations, where the module's go too: prisma.config.ts's, else beside the datasource. */
export function migrationsOf(home: SchemaHome, schemaTexts: string[]): string {
  const { files } = home.schema;
  const datasourceFile = files.find((_, i) => /^\s*datasource\s/m.test(schemaTexts[i])) ?? files[0];
  return (
    home.configured.migrations ??
    (datasourceFile ? joinPath(dirnameOf(datasourceFile), "migrations") : "prisma/migrations")
  );
}

function readJson<T>(host: HostFolder, file: string): T {
  const text = host.readText(file);
  if (text === undefined) refuse(`the host has no ${file}; name the folder of a Next.js app`);
  try {
    return JSON.parse(text) as T;
  } catch {
    refuse(`${file} is not valid JSON`);
  }
}

/** Next takes `src/app` only when there is no `app` at the root; the module's sources go beside it. */
export function sourceRootOf(host: HostFolder): "" | "src/" {
  const hasFile = (folder: string) =>
    ["layout.tsx", "layout.jsx", "layout.js", "page.tsx", "page.jsx", "page.js"].some((f) =>
      host.exists(`${folder}/${f}`),
    );
  if (hasFile("app")) return "";
  if (hasFile("src/app")) return "src/";
  refuse("the host has no app/ or src/app/ with a layout or page; the module needs Next's App Router");
}

/**
 * The alias of the host's source root from tsconfig.json's `paths`, as shadcn's CLI reads it: the key whose target
 * is `./*` (or `./src/*` in a src/ layout), without its `/*`.
 */
export function aliasOf(host: HostFolder, sourceRoot: string): string {
  const text = host.readText("tsconfig.json");
  if (text === undefined) refuse("the host has no tsconfig.json; the module's files are TypeScript");
  const { config, error } = ts.parseConfigFileTextToJson("tsconfig.json", text);
  if (error) refuse("tsconfig.json cannot be read as JSON with comments");
  const options = (config as { compilerOptions?: { baseUrl?: string; paths?: Record<string, unknown> } })
    .compilerOptions;
  const base = (options?.baseUrl ?? ".").replace(/^\.\/?/, "").replace(/\/$/, "");
  const wanted = `${sourceRoot}*`;
  let relative: string | undefined;
  for (const [key, targets] of Object.entries(options?.paths ?? {})) {
    if (!key.endsWith("/*") || !Array.isArray(targets)) continue;
    const hit = targets.some(
      (t) => typeof t === "string" && joinPath(base, t.replace(/^\.\//, "")).replace(/^\.\//, "") === wanted,
    );
    // An alias that is itself a path (`../../outside/*`) would make every copied import a path out of the app.
    if (hit && /^(\.{1,2}|)(\/|$)/.test(key)) relative ??= key;
    else if (hit) return key.slice(0, -2);
  }
  if (relative)
    refuse(
      `tsconfig.json's alias "${relative}" is a path, so the module's imports would leave the app; ` +
        `map a name such as "@/*" to ./${wanted}`,
    );
  refuse(
    `tsconfig.json maps no alias to ./${wanted} (create-next-app's "@/*": ["./${wanted}"]); ` +
      "the module imports its files through it",
  );
}

/** The `schema` and `migrations.path` of prisma.config.ts, where they are string literals. */
export function prismaConfigPaths(text: string, fileName: string): { schema?: string; migrations?: string } {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: { schema?: string; migrations?: string } = {};
  const stringOf = (node: ts.Node, name: string) => {
    if (!ts.isPropertyAssignment(node) || !ts.isIdentifier(node.name) || node.name.text !== name) return undefined;
    if (ts.isStringLiteralLike(node.initializer)) return node.initializer.text;
    refuse(`${fileName}: ${name} is not a string the install can read; write it as a quoted path`);
  };
  const visit = (node: ts.Node) => {
    found.schema ??= stringOf(node, "schema");
    if (
      ts.isPropertyAssignment(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === "migrations" &&
      ts.isObjectLiteralExpression(node.initializer)
    )
      for (const p of node.initializer.properties) found.migrations ??= stringOf(p, "path");
    node.forEachChild(visit);
  };
  visit(source);
  const clean = (p?: string) => p?.replace(/^\.\//, "").replace(/\/$/, "");
  return { schema: clean(found.schema), migrations: clean(found.migrations) };
}

export interface SchemaHome {
  package?: { name: string; folder: string };
  manifest?: Manifest;
  prismaConfig?: string;
  /** prisma.config.ts's paths, relative to the app. */
  configured: { schema?: string; migrations?: string };
  schema: { files: string[]; folder?: string };
}

/**
 * Where the host's Prisma schema is, as Prisma finds it in a package's folder: the app's own, else, in an npm
 * workspace, the one workspace package the app depends on that has a schema (where its client is generated).
 */
export function schemaHomeOf(host: HostFolder, manifest = readJson<Manifest>(host, "package.json")): SchemaHome {
  const own = schemaIn(host, "", manifest);
  if (own.schema.files.length || own.prismaConfig || !host.toBoundary) return own;
  const wanted = new Set(Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }));
  const homes = workspaceFolders(host).flatMap((folder) => {
    const packageManifest = host.exists(`${folder}/package.json`)
      ? readJson<Manifest>(host, `${folder}/package.json`)
      : undefined;
    const name = packageManifest?.name;
    if (typeof name !== "string" || !wanted.has(name) || !packageManifest) return [];
    const home = schemaIn(host, `${folder}/`, packageManifest);
    return home.schema.files.length ? [{ ...home, package: { name, folder } }] : [];
  });
  if (homes.length > 1)
    refuse(
      `the app depends on ${homes.length} workspace packages with a Prisma schema (${homes.map((h) => h.package.name).join(", ")}); ` +
        "the module's models go into one",
    );
  return homes[0] ?? own;
}

/** The schema of the package in `base` ("" or `../../packages/db/`), with its prisma.config.ts where it has one. */
function schemaIn(host: HostFolder, base: string, manifest: Manifest): SchemaHome {
  const prismaConfig = CONFIG_NAMES.map((name) => `${base}${name}`).find((file) => host.exists(file));
  const fromConfig = prismaConfig ? prismaConfigPaths(host.readText(prismaConfig) ?? "", prismaConfig) : {};
  const configured = {
    schema: fromConfig.schema && joinPath(base, fromConfig.schema),
    migrations: fromConfig.migrations && joinPath(base, fromConfig.migrations),
  };
  return { manifest, prismaConfig, configured, schema: schemaOf(host, base, manifest, configured.schema) };
}

/** The schema's files, where Prisma looks: prisma.config.ts's `schema`, package.json's `prisma.schema`, the default. */
function schemaOf(
  host: HostFolder,
  base: string,
  manifest: Manifest,
  configured: string | undefined,
): { files: string[]; folder?: string } {
  const fromManifest = typeof manifest.prisma?.schema === "string" ? joinPath(base, manifest.prisma.schema) : undefined;
  const named = configured ?? fromManifest;
  const candidates = named ? [named] : [`${base}prisma/schema.prisma`, `${base}schema.prisma`];
  for (const candidate of candidates) {
    if (candidate.endsWith(".prisma") && host.exists(candidate)) return { files: [candidate] };
    const files = candidate.endsWith(".prisma") ? [] : host.list(candidate).files.filter((f) => f.endsWith(".prisma"));
    if (files.length) return { files: files.map((f) => `${candidate}/${f}`).sort(), folder: candidate };
  }
  if (named) refuse(`the Prisma schema ${named} named by the host is not there`);
  return { files: [] };
}

/** The host's generator: Prisma 7's `prisma-client` (with its output) or `prisma-client-js`. */
function clientOf(texts: string[], files: string[]): PrismaClientInfo | undefined {
  for (const [i, text] of texts.entries()) {
    let schema;
    try {
      schema = getSchema(text);
    } catch (error) {
      refuse(`${files[i]} cannot be read as a Prisma schema (${(error as Error).message.split("\n")[0]})`);
    }
    for (const block of schema.list) {
      if (block.type !== "generator") continue;
      const value = (key: string) => {
        const assignment = block.assignments.find((a) => a.type === "assignment" && a.key === key);
        return assignment?.type === "assignment" && typeof assignment.value === "string"
          ? assignment.value.replace(/^"|"$/g, "")
          : undefined;
      };
      const provider = value("provider");
      if (provider !== "prisma-client" && provider !== "prisma-client-js") continue;
      const output = value("output");
      if (provider === "prisma-client" && !output)
        refuse(`${files[i]}: the generator "prisma-client" has no output; add one (Prisma 7's default)`);
      const preview = block.assignments.find((a) => a.type === "assignment" && a.key === "previewFeatures");
      const previewFeatures =
        preview?.type === "assignment" &&
        typeof preview.value === "object" &&
        !Array.isArray(preview.value) &&
        preview.value.type === "array"
          ? preview.value.args.map((arg) => arg.replace(/^"|"$/g, ""))
          : [];
      return { provider, previewFeatures, output: output && joinPath(dirnameOf(files[i]), output) };
    }
  }
  return undefined;
}

/** The host's package manager, by its lockfile or its package.json's `packageManager`; refuses any but npm and pnpm. */
export function packageManagerOf(host: HostFolder): PackageManager {
  // In a workspace, the lockfile and the package manager are the workspace root's.
  const root = host.toBoundary;
  const manifest = readJson<Manifest>(host, `${root}package.json`);
  if (host.exists(`${root}pnpm-lock.yaml`)) return "pnpm";
  if (host.exists(`${root}package-lock.json`)) return "npm";
  const other = ["yarn.lock", "bun.lock", "bun.lockb"].find((f) => host.exists(`${root}${f}`));
  const declared = typeof manifest.packageManager === "string" ? manifest.packageManager.split("@")[0] : undefined;
  if (other || (declared && declared !== "npm" && declared !== "pnpm"))
    refuse(`the host uses ${other ?? declared}; the install supports npm and pnpm`);
  return declared === "pnpm" ? "pnpm" : "npm";
}

/** The versions the app runs on; Prisma's as the package that holds the schema lists it, where the app does not. */
function majorsOf(host: HostFolder, manifest: Manifest, home: SchemaHome): HostProject["majors"] {
  const rangesOf = (m: Manifest) => ({ ...m.devDependencies, ...m.dependencies });
  const version = (m: Manifest, folder: string, name: string) => installedVersion(host, folder, rangesOf(m), name);
  const schemaFolder = home.package ? `${home.package.folder}/` : "";
  const next = version(manifest, "", "next");
  if (!next) refuse("the host's package.json does not depend on next; name the folder of a Next.js app");
  // Prisma's CLI, else its client, where the app lists them, else where the schema's package does; a range's floor
  // only where none of them is installed or locked (the floor of prisma's ^6.6.0 is not the 6.19 of a locked client).
  const prismaListed = [
    { m: manifest, folder: "" },
    { m: home.manifest ?? manifest, folder: schemaFolder },
  ].flatMap(({ m, folder }) => ["prisma", "@prisma/client"].map((name) => ({ ranges: rangesOf(m), folder, name })));
  const prisma =
    prismaListed.map(({ ranges, folder, name }) => resolvedVersion(host, folder, ranges, name)).find(Boolean) ??
    prismaListed.map(({ ranges, name }) => rangeFloor(ranges, name)).find(Boolean);
  const zod = version(manifest, "", "zod");
  const supported = (name: string, major: number, majors: readonly number[]) => {
    if (!majors.includes(major))
      refuse(`the host runs ${name} ${major}; the module supports ${name} ${majors.join(" and ")}`);
  };
  supported("Next.js", next.major, SUPPORTED.next);
  if (prisma) supported("Prisma", prisma.major, SUPPORTED.prisma);
  if (zod && zod.major < 4 && (zod.major < 3 || zod.minor < 25))
    refuse(
      `the host has zod ${zod.major}.${zod.minor}; the module needs zod 3.25 or later, or 4 (it imports "zod/v4")`,
    );
  return { next: next.major, prisma: prisma?.major, prismaMinor: prisma?.minor, zod };
}

const dirnameOf = (file: string) => (file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "");

/**
 * A host-relative path joined and normalised with "/" (".." resolved), as Prisma resolves a schema's `output`; the
 * leading ".." of a workspace package's paths stay.
 */
function joinPath(folder: string, relative: string): string {
  const parts: string[] = [];
  for (const part of `${folder}/${relative}`.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length && parts[parts.length - 1] !== "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

/** The module's folder of migrations, whose folders go into the host's. */
const MODULE_MIGRATIONS = "prisma/migrations/";

/**
 * Where a module file goes in the host: its migrations into the host's folder of migrations, its scripts at the
 * host's root (they run from there, as `npm run host:check`), every other file under the host's source root.
 */
export function hostPathOf(project: Pick<HostProject, "sourceRoot" | "migrations">, file: string): string {
  if (file.startsWith(MODULE_MIGRATIONS)) return `${project.migrations}/${file.slice(MODULE_MIGRATIONS.length)}`;
  if (file.startsWith("scripts/")) return file;
  return `${project.sourceRoot}${file}`;
}

/** The module's own way to its Prisma client, which the install points at the host's generated client. */
export const MODULE_CLIENT = "lib/generated/prisma/client.ts";

/**
 * What the host's copy of MODULE_CLIENT re-exports: the host's generated client, by the host's alias where it is
 * under the source root, else by a relative path; undefined where the host's client is generated there itself.
 */
export function clientImportOf(project: HostProject): string | undefined {
  const client = project.client;
  if (!client) return undefined;
  if (!client.output) return "@prisma/client";
  const entry = client.provider === "prisma-client" ? `${client.output}/client` : client.output;
  const own = hostPathOf(project, MODULE_CLIENT).replace(/\.ts$/, "");
  if (entry === own) return undefined;
  if (entry.startsWith(project.sourceRoot) && !entry.startsWith("../"))
    return `${project.alias}/${entry.slice(project.sourceRoot.length)}`;
  const relative = path.posix.relative(path.posix.dirname(own), entry);
  return relative.startsWith(".") ? relative : `./${relative}`;
}
