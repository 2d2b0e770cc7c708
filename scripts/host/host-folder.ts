// Every file access of `host:install` and `host:uninstall` inside the host's folder: no read, write or removal
// through a link that leaves the folder, nor of anything that is not a regular file, and every write staged so that
// a failure part way leaves the host as it was.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  rmSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import path from "node:path";

/** A sentence for the host developer: the command stops, changes nothing, and prints it. */
export class Refusal extends Error {}

/** Refuses a value a host file or record gave that is not what the command can use. */
export function refuse(message: string): never {
  throw new Refusal(message);
}

/** The one sentence a command prints when it stops: a refusal's own, else what failed, without a stack trace. */
export function refusalSentence(error: unknown): string {
  if (error instanceof Refusal) return error.message;
  const { code, path: file, message } = error as NodeJS.ErrnoException;
  if (code && file) return `${file} could not be read or written (${code})`;
  return `unexpected failure: ${String(message ?? error).split("\n")[0]}`;
}

const lstatOrUndefined = (file: string): Stats | undefined => {
  try {
    return lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
};

/** Whether `relative` names a path under a folder: relative, with "/" between parts, none of them "", "." or "..". */
export function isInsidePath(relative: string): boolean {
  return (
    !path.isAbsolute(relative) &&
    !relative.includes("\\") &&
    relative.split("/").every((p) => !["", ".", ".."].includes(p))
  );
}

/** What a staged write replaces: the file's bytes, or undefined when the write creates it. */
interface Staged {
  file: string;
  content: string | Buffer | null;
  before?: Buffer;
}

export class HostFolder {
  readonly root: string;
  private readonly staged = new Map<string, Staged>();

  constructor(folder: string) {
    const stat = lstatOrUndefined(folder);
    if (!stat) refuse(`${folder} does not exist`);
    this.root = realpathSync(folder);
    if (!lstatSync(this.root).isDirectory()) refuse(`${folder} is not a folder`);
  }

  /**
   * The real path of `relative` inside the host: each part that is a link must resolve inside the folder, each
   * folder on the way must be a folder, and what is there must be a regular file or nothing.
   */
  private locate(relative: string): string {
    if (!isInsidePath(relative)) refuse(`${JSON.stringify(relative)} is not a path inside the host folder`);
    const parts = relative.split("/");
    let current = this.root;
    for (const [i, part] of parts.entries()) {
      const next = path.join(current, part);
      const stat = lstatOrUndefined(next);
      if (!stat) return path.join(next, ...parts.slice(i + 1));
      const shown = parts.slice(0, i + 1).join("/");
      if (stat.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(next);
        } catch {
          refuse(`${shown} is a link to nothing; remove it or make it a file of the host`);
        }
        if (path.relative(this.root, target).split(path.sep)[0] === "..")
          refuse(`${shown} is a link to ${target}, outside the host folder`);
        current = target;
      } else current = next;
      const last = i === parts.length - 1;
      const kind = lstatSync(current);
      if (!last && !kind.isDirectory()) refuse(`${shown} is not a folder`);
      if (last && !kind.isFile()) refuse(`${shown} is not a regular file`);
    }
    return current;
  }

  /** Whether `relative` is a regular file in the host (after the checks of locate). */
  exists(relative: string): boolean {
    return lstatOrUndefined(this.locate(relative)) !== undefined;
  }

  /** The file's bytes, or undefined when there is none; as staged when a write of it is staged. */
  read(relative: string): Buffer | undefined {
    const staged = this.staged.get(relative);
    if (staged) return staged.content === null ? undefined : Buffer.from(staged.content);
    const file = this.locate(relative);
    let fd: number;
    try {
      // O_NONBLOCK: a FIFO swapped in after the check opens without waiting for a writer, and is then refused.
      fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      if (!fstatSync(fd).isFile()) refuse(`${relative} is not a regular file`);
      return readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  readText(relative: string): string | undefined {
    return this.read(relative)?.toString("utf8");
  }

  /** Stages `content` (null: the file's removal) for apply(); the path is checked now. */
  stage(relative: string, content: string | Buffer | null): void {
    const file = this.locate(relative);
    const previous = this.staged.get(relative);
    this.staged.set(relative, { file, content, before: previous ? previous.before : this.read(relative) });
  }

  /**
   * Writes every staged change; on a failure, puts back what it had changed (files and the folders it made) and
   * refuses, naming the file.
   */
  apply(): void {
    const done: Staged[] = [];
    const madeFolders: string[] = [];
    try {
      for (const change of this.staged.values()) {
        if (change.content === null) {
          if (change.before !== undefined) rmSync(change.file);
        } else {
          const made = mkdirSync(path.dirname(change.file), { recursive: true });
          if (made) madeFolders.push(made);
          writeNoFollow(change.file, change.content);
        }
        done.push(change);
      }
    } catch (error) {
      for (const change of done.reverse()) {
        if (change.before === undefined) rmSync(change.file, { force: true });
        else writeNoFollow(change.file, change.before);
      }
      for (const folder of madeFolders.reverse()) rmSync(folder, { recursive: true, force: true });
      const failed = [...this.staged.keys()][done.length];
      refuse(`${failed} could not be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    this.staged.clear();
  }

  /** Removes the folders left empty by removed files, from `relative`'s folder up to the host folder. */
  pruneEmptyFolders(relative: string): void {
    for (let dir = path.posix.dirname(relative); dir !== "."; dir = path.posix.dirname(dir)) {
      const folder = path.join(this.root, dir);
      if (!lstatOrUndefined(folder)?.isDirectory()) return;
      try {
        rmdirSync(folder);
      } catch {
        return; // not empty
      }
    }
  }
}

function writeNoFollow(file: string, content: string | Buffer): void {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    0o666,
  );
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error("not a regular file"), { code: "ENOTREG" });
    writeFileSync(fd, content);
  } finally {
    closeSync(fd);
  }
}
