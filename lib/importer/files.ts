import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { constants, type FileHandle, lstat, open, rename, unlink } from "node:fs/promises";

/**
 * The importer's own files are regular files it creates or replaces itself: never opened through a link or as a
 * FIFO, and replaced by renaming a complete file over them (docs/decisions.md, "The importer's files").
 */

/** Why an import cannot use one of its files, as one sentence; `kind` picks the exit code (lib/importer/run.ts). */
export class ImportFileError extends Error {
  constructor(
    message: string,
    /**
     * busy: another run holds the ledger; usage: the operator must fix a path or a file; not-regular: something other
     * than a regular file stands at one of the importer's names; io: the disk failed.
     */
    readonly kind: "busy" | "usage" | "not-regular" | "io",
  ) {
    super(message);
  }
}

const { O_CREAT, O_EXCL, O_NONBLOCK, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;

const notRegular = (file: string, stat: Stats) =>
  new ImportFileError(
    `${file} is a ${kindOf(stat)}, not a regular file; the importer writes only regular files: remove it or give another path.`,
    "not-regular",
  );

function kindOf(stat: Stats): string {
  if (stat.isSymbolicLink()) return "symbolic link";
  if (stat.isDirectory()) return "directory";
  if (stat.isFIFO()) return "FIFO";
  if (stat.isSocket()) return "socket";
  return "device";
}

/** A failed file-system call as one sentence: what failed, the system's reason, what to do. */
export function diskError(action: string, file: string, error: unknown): ImportFileError {
  if (error instanceof ImportFileError) return error;
  const reason = (error as Error).message.split(",")[0];
  return new ImportFileError(
    `Could not ${action} ${file} (${reason}): fix that (disk space, permissions), then run the same command again.`,
    "io",
  );
}

/** Refuses a path that exists as anything but a regular file; false if there is nothing at it. */
export async function checkRegularOrAbsent(file: string): Promise<boolean> {
  const stat = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw diskError("check", file, error);
  });
  if (stat && !stat.isFile()) throw notRegular(file, stat);
  return stat !== null;
}

/**
 * Opens an existing regular file without following a link (`flags` besides O_NOFOLLOW); null if there is none. A name
 * is looked at before it is opened; O_NONBLOCK keeps a FIFO put there in between from blocking the open.
 */
export async function openRegular(file: string, flags: number = O_RDONLY): Promise<FileHandle | null> {
  if (!(await checkRegularOrAbsent(file))) return null;
  let handle: FileHandle;
  try {
    handle = await open(file, flags | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    // A symbolic link put there since the check: the check again names it.
    if (code === "ELOOP") await checkRegularOrAbsent(file);
    throw diskError("open", file, error);
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw notRegular(file, stat);
  }
  return handle;
}

/**
 * Writes `text` to a new file beside `target` under a name no other process uses,
 * created exclusively and without following links, and fsyncs it. Returns its path;
 * the caller links or renames it into place.
 */
export async function writeTemporary(target: string, text: string): Promise<string> {
  const temporary = `${target}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  let handle: FileHandle | null = null;
  try {
    handle = await open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW);
    await handle.writeFile(text);
    await handle.sync();
    await handle.close();
    return temporary;
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw diskError("write", target, error);
  }
}

/** Replaces `target` with a complete file holding `text`; a link at `target` is replaced, never written through. */
export async function replaceFile(target: string, text: string): Promise<void> {
  const temporary = await writeTemporary(target, text);
  try {
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw diskError("write", target, error);
  }
}
