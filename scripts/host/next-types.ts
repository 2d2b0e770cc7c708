// Next's generated route types (.next/types from `next build`, .next/dev/types from `next dev`) name every route of
// the app, the module's too, and the host's tsconfig includes them: left behind, they fail the host's next build with
// TS2307 on the removed routes. Next writes them again at its next build or dev, so the uninstall removes them whole.
import type { HostFolder } from "./host-folder";

const NEXT_TYPE_FOLDERS = [".next/types", ".next/dev/types"];

/** Stages the removal of every file of Next's generated types; the files, and the line the uninstall prints. */
export function planNextTypes(host: HostFolder): { files: string[]; lines: string[] } {
  const files: string[] = [];
  const walk = (folder: string) => {
    const { files: names, folders } = host.list(folder);
    for (const name of names) files.push(`${folder}/${name}`);
    for (const name of folders) walk(`${folder}/${name}`);
  };
  for (const folder of NEXT_TYPE_FOLDERS) walk(folder);
  for (const file of files) host.stage(file, null);
  const found = NEXT_TYPE_FOLDERS.filter((folder) => files.some((file) => file.startsWith(`${folder}/`)));
  return {
    files,
    lines: found.length
      ? [`- Next's generated types: ${found.join(", ")} removed (next build and next dev write them again)`]
      : [],
  };
}
