// `npm run host:install -- <host-dir>`: puts the module into a Next.js 16 app (docs/host-guide.md, "Installing").
import path from "node:path";
import { MIN_KEY_LENGTH } from "../../lib/api/api-key.mjs";
import { commandLine } from "./check/command-line";
import { gateEdit, gateStep } from "./check/gate";
import { stopLine, type HostFolder } from "./host-folder";
import { installAndGenerate } from "./host-package";
import { STATE_FILE } from "./manifest";
import { planInstall, type InstallPlan } from "./plan-install";
import { namesMigrationNote } from "./names-migration";
import type { HostProject, PackageManager } from "./project-info";
import { openHost } from "./workspace";

const USAGE = `Usage: npm run host:install -- <host-dir> [--dry-run]

Puts the module into the Next.js app in <host-dir>, or upgrades it there (docs/host-guide.md, "Installing").
  --dry-run   prints what the install would write and change, and writes nothing`;

function main(hostArg: string, dryRun: boolean): void {
  const host = openHost(path.resolve(process.env.INIT_CWD ?? process.cwd(), hostArg));
  // Everything is read and decided before anything is written: a refusal leaves the host as it was.
  const plan = planInstall(host);
  if (!("writes" in plan)) {
    if (!dryRun) {
      host.stage(plan.file, plan.text);
      host.apply();
    }
    console.error(
      `host:install: ${dryRun ? plan.sentence.replace(" was written ", " would be written ") : plan.sentence}`,
    );
    process.exitCode = 1;
    return;
  }
  if (dryRun) {
    console.log(planLines(host, plan).join("\n"));
    return;
  }
  for (const [file, content] of plan.writes) host.stage(file, content);
  host.apply();
  console.log(
    [
      `Lead Intake module ${plan.version} installed into ${host.root}:`,
      ...summaryLines(host, plan),
      "Left to do, in the host's folder:",
      ...leftToDo(plan.project.packageManager, plan.project.schemaPackage?.name, gateStepOf(host, plan.project)).map(
        (step, i) => `${i + 1}. ${step}`,
      ),
    ].join("\n"),
  );
}

/** What the install did, or would do: one line for each part of the host it changes. */
function summaryLines(host: HostFolder, plan: InstallPlan): string[] {
  const { files, schema, project, packages } = plan;
  return [
    `- files: ${files.added.length} added, ${files.updated.length} updated, ${files.unchanged} unchanged, ` +
      `${files.removed.length} removed (recorded in ${STATE_FILE})`,
    ...files.kept.map((file) => `- kept, edited by the host (compare with the module's): ${file}`),
    `- ${schema.where}: ${schema.created ? "written with the module's models" : schema.added.length ? `added ${schema.added.join(", ")}` : "already has the module's models"}`,
    `- names: ${hostModels(plan)}; ${plan.renderedMigrations.length ? `migrations in the host's names: ${plan.renderedMigrations.join(", ")}` : "the migrations as they are"}`,
    ...(plan.namesMigration ? [`- ${namesMigrationNote(plan.namesMigration)}`] : []),
    ...(project.schemaPackage ? [`- ${workspaceLine(host, project, project.schemaPackage)}`] : []),
    `- package.json: ${packages.changes.length ? packages.changes.join("; ") : "unchanged"}`,
    ...packages.notes.map((note) => `- ${note}`),
    `- ${plan.nextConfig}`,
    ...(project.gate ? [`- ${gateNote(project.gate, gateStepOf(host, project) !== undefined)}`] : []),
  ];
}

/** The summary's line on the host's own gate: left as it is, and whether a step edits it. */
const gateNote = (gate: string, edited: boolean) =>
  `${gate} is the host's own and left as it is: ` +
  (edited ? "a step below says the edit that lets the module's paths through" : "it leaves the module's paths out");

/**
 * The step that lets the module's paths through the host's own gate, in the form its gate takes; none where the
 * host has no gate, or one whose matcher leaves them out. A gate that cannot be read (a link out of the host) gets the
 * edit in general terms.
 */
function gateStepOf(host: HostFolder, project: HostProject): string | undefined {
  if (!project.gate) return undefined;
  let text: string | undefined;
  try {
    text = host.readText(project.gate);
  } catch {
    text = undefined;
  }
  const edit = gateEdit(text);
  return edit ? gateStep(project.gate, edit) : undefined;
}

/** The host's table of each of the module's host models, or none. */
const hostModels = (plan: InstallPlan) =>
  Object.entries(plan.names)
    .map(([model, names]) => `${model} on ${names ? `table ${names.table}` : "no table"}`)
    .join(", ");

/** `--dry-run`: the plan, with every file it would write or remove, and nothing written. */
function planLines(host: HostFolder, plan: InstallPlan): string[] {
  return [
    `Lead Intake module ${plan.version} would be installed into ${host.root} (dry run, nothing written):`,
    ...summaryLines(host, plan),
    "Files it would write:",
    ...[...plan.writes].map(([file, content]) => `  ${content === null ? "remove" : "write "} ${file}`),
  ];
}

/**
 * The steps after the install, each a command to run as printed but the settings and the gate's edit: the packages and
 * the client, the settings, the edit of the host's own gate, the build, the host's own start (its start script, which
 * has the preload), then the check.
 */
function leftToDo(manager: PackageManager, schemaPackage: string | undefined, gate: string | undefined): string[] {
  return [
    installAndGenerate(manager, schemaPackage),
    `Set LEADS_API_KEY (at least ${MIN_KEY_LENGTH} characters: openssl rand -base64 32), DATABASE_URL (the ` +
      "host's PostgreSQL) and LEADS_HOST_URL (its base URL, as http://localhost:3000, through which host:check " +
      "tries the module's paths) in the environment or the host's .env",
    ...(gate ? [gate] : []),
    `${manager} run build`,
    `${manager} start`,
    `${manager} run host:check`,
  ];
}

/** Where the install put what in an npm workspace, from its root: the app, the schema's package, the migrations. */
function workspaceLine(
  host: HostFolder,
  project: HostProject,
  schemaPackage: { name: string; folder: string },
): string {
  const fromRoot = (relative: string) => host.inside(relative) ?? relative;
  return (
    `workspace ${host.boundary}: the module's files and packages go into the app ` +
    `(${path.relative(host.boundary, host.root)}), its models into the schema of ${schemaPackage.name} ` +
    `(${fromRoot(project.schemaFolder ?? project.schemaFiles[0])}), its migrations into ${fromRoot(project.migrations)}, ` +
    `and ${schemaPackage.name} generates the client`
  );
}

const { values, positionals } = commandLine(USAGE, {
  options: { "dry-run": { type: "boolean", default: false } },
  min: 1,
});
try {
  main(positionals[0], values["dry-run"]);
} catch (error) {
  console.error(stopLine("host:install", error));
  process.exitCode = 1;
}
