// The install's last check, on the plan before anything is written (docs/host-guide.md, "Installing: one command"):
// what can be known without the host's build, that the schema it writes validates and that the client it points the
// module at resolves. A failure refuses in one sentence, with the host as it was.
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { refuse, type HostFolder } from "./host-folder";
import { HOST_SCHEMA } from "./plan-schema";
import { clientImportOf, hostPathOf, MODULE_CLIENT, type HostProject } from "./project-info";
import { schemaProblems, type SchemaTexts } from "./schema-valid";

type Writes = ReadonlyMap<string, string | Buffer | null>;

/** Refuses a plan whose schema Prisma would not take, or whose client import would not resolve in the host. */
export function checkPlan(host: HostFolder, project: HostProject, writes: Writes): void {
  checkSchema(host, project, writes);
  const problem = clientProblem(host, project, writes);
  if (problem) refuse(problem);
}

/** A host file's text once the plan is applied: its planned content, else its own; undefined where there is none. */
function planned(host: HostFolder, writes: Writes, file: string): string | undefined {
  const content = writes.get(file);
  if (content === null) return undefined;
  return content === undefined ? host.readText(file) : content.toString();
}

/**
 * The schema's files once the plan is applied, as Prisma reads them: one file, or every `.prisma` file under the
 * folder, its subfolders and links included (each real folder once). Also the files the install does not merge into.
 */
function plannedSchema(
  host: HostFolder,
  project: HostProject,
  writes: Writes,
): { files: SchemaTexts; unseen: string[] } {
  const folder = project.schemaFolder;
  if (!folder) {
    const file = project.schemaFiles[0] ?? HOST_SCHEMA;
    return { files: [[file, planned(host, writes, file) ?? ""]], unseen: [] };
  }
  const found: string[] = [];
  const seen = new Set<string>();
  const walk = (dir: string) => {
    const real = realpathSync(path.join(host.root, dir));
    if (seen.has(real)) return;
    seen.add(real);
    const { files, folders, linkedFolders } = host.list(dir);
    found.push(...files.filter((f) => f.endsWith(".prisma")).map((f) => `${dir}/${f}`));
    for (const sub of folders) walk(`${dir}/${sub}`);
    for (const link of linkedFolders) {
      const target = realpathSync(path.join(host.root, dir, link));
      const relative = path.relative(host.root, target).split(path.sep).join("/");
      if (!relative || host.inside(relative) === undefined)
        refuse(`${dir}/${link} is a link to ${target}, not a folder inside the host folder, and Prisma reads it`);
      walk(relative);
    }
  };
  walk(folder);
  for (const [file, content] of writes)
    if (content !== null && file.startsWith(`${folder}/`) && file.endsWith(".prisma") && !found.includes(file))
      found.push(file);
  const merged = new Set(project.schemaFiles);
  return {
    files: found.flatMap((file): SchemaTexts => {
      const text = planned(host, writes, file);
      return text === undefined ? [] : [[file, text]];
    }),
    unseen: found.filter((file) => !merged.has(file) && !writes.has(file)),
  };
}

function checkSchema(host: HostFolder, project: HostProject, writes: Writes): void {
  const { files, unseen } = plannedSchema(host, project, writes);
  const problems = schemaProblems(files);
  if (!problems.length) return;
  const where = project.schemaFolder ?? files[0]?.[0] ?? HOST_SCHEMA;
  refuse(
    `the schema the install would write (${where}) is not valid for Prisma: ${problems.slice(0, 3).join("; ")}; ` +
      (unseen.length
        ? `Prisma also reads ${unseen.join(", ")}, which the install does not merge into (a subfolder or a linked ` +
          `folder): move ${unseen.length > 1 ? "their" : "its"} models into a file directly in ${where}`
        : `correct the host's schema (npx prisma validate on it shows whether the fault is already there) or ` +
          "lead-intake.config.json, and run the install again"),
  );
}

/**
 * Why the module's client import or the re-export written for it would not reach, in the host's TypeScript, the client
 * its generator makes (taken as generated) or an importable `@prisma/client`; undefined where both do.
 */
function clientProblem(host: HostFolder, project: HostProject, writes: Writes): string | undefined {
  const client = project.client;
  const reExport = clientImportOf(project);
  const own = hostPathOf(project, MODULE_CLIENT);
  if (client && !client.output) return packageProblem(host, project, writes, own);
  const generated = !client
    ? undefined
    : client.provider === "prisma-client"
      ? `${client.output}/client.ts`
      : `${client.output}/index.d.ts`;
  const resolve = moduleResolver(host, writes, generated);
  const moduleImport = `${project.alias}/${MODULE_CLIENT.replace(/\.ts$/, "")}`;
  const importer = hostPathOf(project, "lib/db/prisma.ts");
  const wanted = reExport ? own : generated;
  const aliasFix =
    `correct tsconfig.json's paths so that "${project.alias}/*" to ./${project.sourceRoot}* is the entry that ` +
    "applies to it (TypeScript takes the longest one that matches)";
  const got = resolve(moduleImport, importer);
  if (wanted && got !== wanted)
    return (
      `the module's import "${moduleImport}" ${got ? `resolves to ${got}` : "does not resolve"} in the host, ` +
      `where the install puts ${wanted}: ${aliasFix}`
    );
  if (!reExport || !generated) return undefined;
  const target = resolve(reExport, own);
  if (target === generated) return undefined;
  return (
    `${own} would re-export "${reExport}", which ${target ? `resolves to ${target}` : "does not resolve"} in the ` +
    `host, while Prisma generates the client at ${generated}: ` +
    (reExport.startsWith(".") ? "move the generator's output inside the host folder" : aliasFix)
  );
}

/**
 * Where the host's TypeScript resolves `specifier` from `importer` (host paths), with the host's tsconfig.json
 * options, the plan's writes and the generated client taken as there; undefined where it resolves nowhere in the host.
 */
function moduleResolver(host: HostFolder, writes: Writes, generated: string | undefined) {
  const relative = (file: string) => path.relative(host.root, file).split(path.sep).join("/");
  const inHost = (file: string) => {
    const rel = relative(file);
    return host.inside(rel) === undefined ? undefined : rel;
  };
  const fileText = (file: string): string | undefined => {
    const rel = inHost(file);
    if (rel === undefined) return undefined;
    if (rel === generated) return "";
    try {
      return planned(host, writes, rel);
    } catch {
      return undefined; // not a regular file the host may read: not one TypeScript would take either
    }
  };
  const prefixes = [...writes.keys(), ...(generated ? [generated] : [])].map((file) => `${file}/`);
  const resolutionHost: ts.ModuleResolutionHost = {
    fileExists: (file) => fileText(file) !== undefined,
    readFile: fileText,
    directoryExists: (dir) => {
      const rel = inHost(dir);
      if (rel === undefined) return false;
      return prefixes.some((p) => p.startsWith(`${rel}/`)) || !!statSync(dir, { throwIfNoEntry: false })?.isDirectory();
    },
    getCurrentDirectory: () => host.root,
  };
  const text = host.readText("tsconfig.json") ?? "{}";
  const raw = ts.parseConfigFileTextToJson("tsconfig.json", text).config as { compilerOptions?: object } | undefined;
  const { options } = ts.convertCompilerOptionsFromJson(raw?.compilerOptions ?? {}, host.root, "tsconfig.json");
  if (options.paths && !options.baseUrl) options.pathsBasePath = host.root;
  return (specifier: string, importer: string): string | undefined => {
    const { resolvedModule } = ts.resolveModuleName(specifier, path.join(host.root, importer), options, resolutionHost);
    return resolvedModule && inHost(resolvedModule.resolvedFileName);
  };
}

/**
 * For `prisma-client-js` without an output (`@prisma/client`): the app's package.json as planned lists the package,
 * or it is installed where Node looks from the app, or npm hoists the schema package's to the workspace root.
 */
function packageProblem(host: HostFolder, project: HostProject, writes: Writes, own: string): string | undefined {
  const name = "@prisma/client";
  const lists = (file: string) => {
    const json = JSON.parse(planned(host, writes, file) ?? "{}") as Record<string, Record<string, string> | undefined>;
    return json.dependencies?.[name] !== undefined || json.devDependencies?.[name] !== undefined;
  };
  if (lists("package.json")) return undefined;
  const schemaPackage = project.schemaPackage;
  if (project.packageManager === "npm" && schemaPackage && lists(`${schemaPackage.folder}/package.json`)) return;
  for (let up = ""; host.inside(`${up}node_modules`) !== undefined; up += "../")
    if (statSync(path.join(host.root, up, "node_modules", name), { throwIfNoEntry: false })?.isDirectory()) return;
  return (
    `${own} would re-export "${name}", which the app cannot import: its package.json does not list it` +
    (project.packageManager === "pnpm" ? ", and pnpm links only a package's own dependencies" : "") +
    `; add ${name} to the app's dependencies${schemaPackage ? ` at ${schemaPackage.name}'s version` : ""}, or give ` +
    `the generator of ${project.schemaFiles[0] ?? HOST_SCHEMA} an output`
  );
}
