import type { HostFolder } from "./host-folder";
import { NEXT_CONFIGS } from "./module-adds";
import { serverExternalPackagesOf, withServerExternalPackages } from "./next-config";
import type { InstallRecord } from "./record";

/** `serverExternalPackages` in the host's next.config (.ts, .mjs or .js), or what the host must add by hand. */
export function planServerExternalPackages(
  host: HostFolder,
  recorded: InstallRecord["nextConfig"],
  wanted: string[],
): { line: string; record: InstallRecord["nextConfig"]; write?: { file: string; text: string } } {
  const list = wanted.join(", ");
  const manual = {
    line: `add serverExternalPackages: ${JSON.stringify(wanted).replace(/,/g, ", ")} to the host's next.config by hand`,
    record: recorded,
  };
  const name = NEXT_CONFIGS.find((n) => host.exists(n));
  if (!name) return manual;
  const text = host.readText(name)!;
  const before = serverExternalPackagesOf(text, name);
  const edited = withServerExternalPackages(text, name, wanted);
  if (before === undefined || edited === undefined) return { ...manual, line: `${name}: ${manual.line}` };
  if (edited === null) return { line: `${name}: serverExternalPackages already lists ${list}`, record: recorded };
  // Said only of what the edited text evaluates to.
  const after = serverExternalPackagesOf(edited, name);
  if (!wanted.every((p) => after?.includes(p))) return { ...manual, line: `${name}: ${manual.line}` };
  const created = recorded?.file === name ? recorded.created : !/\bserverExternalPackages\b/.test(text);
  const packages = wanted.filter((p) => !before.includes(p));
  return {
    line: `${name}: serverExternalPackages lists ${list}`,
    record: { file: name, packages: [...new Set([...(recorded?.packages ?? []), ...packages])], created },
    write: { file: name, text: edited },
  };
}
