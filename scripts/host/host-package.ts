import { refuse, type HostFolder } from "./host-folder";
import type { PackageManager } from "./project-info";

export type HostPackage = Record<string, Record<string, string> | undefined>;

/** The host's package.json, refused unless the parts the install reads and edits have the shape npm gives them. */
export function readHostPackage(host: HostFolder): HostPackage {
  const text = host.readText("package.json");
  if (text === undefined) refuse(`${host.root} has no package.json; name the folder of a Next.js 16 app`);
  const json = parseJson(text, "package.json");
  if (!isObject(json)) refuse("package.json is not a JSON object");
  for (const key of ["dependencies", "devDependencies", "scripts"]) {
    const value = json[key];
    if (value === undefined) continue;
    if (!isObject(value)) refuse(`package.json: "${key}" is not an object`);
    for (const [name, entry] of Object.entries(value))
      if (typeof entry !== "string") refuse(`package.json: ${key}.${name} is ${JSON.stringify(entry)}, not a string`);
  }
  return json as HostPackage;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    refuse(`${file} is not valid JSON (${(error as Error).message})`);
  }
}

/**
 * The step after an install or uninstall: the host's packages as its package.json now lists them, and its client.
 * pnpm is told to update its lockfile, which it refuses by default where CI is set, since package.json changed.
 */
export function installAndGenerate(manager: PackageManager): string {
  const install = { npm: "npm install", pnpm: "pnpm install --no-frozen-lockfile" }[manager];
  const exec = { npm: "npx", pnpm: "pnpm exec" }[manager];
  return `${install} && ${exec} prisma generate`;
}
