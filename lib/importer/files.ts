import { randomBytes } from "node:crypto";
import { constants, type FileHandle, lstat, open, rename, unlink } from "node:fs/promises";

/**
 * The importer's own files (ledger, lock, results) are regular files it creates or
 * replaces itself: nothing is opened through a symbolic link (O_NOFOLLOW), temporary
 * files get a fresh name created exclusively (O_EXCL), and a file is replaced by
 * renaming a complete one over it, so no reader sees half a file and no write lands
 * in a file a link points to.
 */

/** Why an import cannot use one of its files, as one sentence; `kind` picks the exit code (lib/importer/run.ts). */
export class ImportFileError extends Error {
  constructor(
    message: string,
    /** busy: another run holds the ledger; usage: the operator must fix a path or a file; io: the disk failed. */
    readonly kind: "busy" | "usage" | "io",
  ) {
    super(message);
  }
}

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;

const notRegular = (file: string) =>
  new ImportFileError(
    `${file} is a symbolic link or not a regular file; the importer writes only regular files: remove it or give another path.`,
    "usage",
  );

/** A failed file-system call as one sentence: what failed, the system's reason, what to do. */
export function diskError(action: string, file: string, error: unknown): ImportFileError {
  if (error instanceof ImportFileError) return error;
  const reason = (error as Error).message.split(",")[0];
  return new ImportFileError(
    `Could not ${action} ${file} (${reason}): fix that (disk space, permissions), then run the same command again.`,
    "io",
  );
}

/** Refuses a path that exists as anything but a regular file: checked before a run sends anything. */
export async function checkRegularOrAbsent(file: string): Promise<void> {
  const stat = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw diskError("check", file, error);
  });
  if (stat && !stat.isFile()) throw notRegular(file);
}

/** Opens an existing regular file without following a link (`flags` besides O_NOFOLLOW); null if there is none. */
export async function openRegular(file: string, flags: number = O_RDONLY): Promise<FileHandle | null> {
  let handle: FileHandle;
  try {
    handle = await open(file, flags | O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw notRegular(file);
    throw diskError("open", file, error);
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw notRegular(file);
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
