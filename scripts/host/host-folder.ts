// Every file access of `host:install` and `host:uninstall` inside the host's folder: no read, write or removal
// through a link that leaves the folder, nor of anything that is not a regular file or that another user could have
// put there, and every write staged so that a failure part way leaves the host as it was.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import path from "node:path";

/** A sentence for the host developer: the command stops, changes nothing, and prints it. */
export class Refusal extends Error {}

/** A failed write whose changes could not all be put back: its sentence names the files left changed. */
export class PartlyWritten extends Refusal {}

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

/** The line a command ends with when it stops: its sentence, and that nothing was changed unless it says otherwise. */
export const stopLine = (command: string, error: unknown): string =>
  `${command}: ${refusalSentence(error)}${error instanceof PartlyWritten ? "" : "; nothing was changed"}.`;

const lstatOrUndefined = (file: string): Stats | undefined => {
  try {
    return lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
};

/**
 * Refuses a real path (no link) that the user running the command cannot trust: one another user owns (root aside),
 * or one its group or every user can write, whose content may then not be the host's.
 */
export function refuseUntrusted(file: string): void {
  const { uid, mode } = lstatSync(file);
  const own = process.getuid?.();
  if (own !== undefined && uid !== own && uid !== 0)
    refuse(
      `${file} belongs to another user (uid ${uid}), so it is not the host's to trust: chown it to the host's user`,
    );
  if (mode & 0o022)
    refuse(
      `${file} can be written by ${mode & 0o002 ? "every user" : "its group"} (mode ${(mode & 0o777).toString(8)}), ` +
        "so it is not the host's to trust: chmod go-w it",
    );
}

const statOrUndefined = (file: string): Stats | undefined => statSync(file, { throwIfNoEntry: false });

/** Whether `relative` names a path under a folder: relative, with "/" between parts, none of them "", "." or "..". */
export function isInsidePath(relative: string): boolean {
  return (
    !path.isAbsolute(relative) &&
    !relative.includes("\\") &&
    relative.split("/").every((p) => !["", ".", ".."].includes(p))
  );
}

/** What a staged write replaces: the file's bytes and mode, or undefined when the write creates it. */
interface Staged {
  file: string;
  content: string | Buffer | null;
  before?: Buffer;
  mode?: number;
}

/**
 * The host's app folder (`root`), whose relative paths every method takes, inside the folder no access may leave
 * (`boundary`): the app's own folder, or the root of the npm workspace that holds the app (scripts/host/workspace.ts),
 * whose other packages the app's paths reach by leading `../`.
 */
export class HostFolder {
  readonly root: string;
  readonly boundary: string;
  /** The path from the app folder up to the boundary: "" or, in a workspace, "../" for each level (`../../`). */
  readonly toBoundary: string;
  /** The app folder's path from the boundary, as parts ([] for the app's own folder). */
  private readonly appParts: string[];
  private readonly staged = new Map<string, Staged>();

  /** `trusting`: false only to look at a folder above the host, whose files are then read without the owner checks. */
  constructor(
    folder: string,
    boundary?: string,
    private readonly trusting = true,
  ) {
    const stat = lstatOrUndefined(folder);
    if (!stat) refuse(`${folder} does not exist`);
    this.root = realpathSync(folder);
    if (!lstatSync(this.root).isDirectory()) refuse(`${folder} is not a folder`);
    this.boundary = boundary ?? this.root;
    const fromBoundary = path.relative(this.boundary, this.root);
    this.appParts = fromBoundary ? fromBoundary.split(path.sep) : [];
    if (this.appParts[0] === "..") throw new Error(`${this.root} is not inside ${this.boundary}`);
    this.toBoundary = "../".repeat(this.appParts.length);
    this.trust(this.boundary);
  }

  /** Refuses `real` (inside the boundary, no links) where it or a folder on the way from the boundary is untrusted. */
  private trust(real: string): void {
    if (!this.trusting) return;
    const parts = path.relative(this.boundary, real).split(path.sep).filter(Boolean);
    for (let i = 0; i <= parts.length; i++) refuseUntrusted(path.join(this.boundary, ...parts.slice(0, i)));
  }

  /**
   * `relative` (from the app folder) as a path from the boundary, or undefined where it is not one inside it: leading
   * `../` parts only, no further up than the boundary, and then a path of named parts.
   */
  inside(relative: string): string | undefined {
    let up = 0;
    while (relative.startsWith("../", up * 3)) up++;
    const rest = relative.slice(up * 3);
    if (up > this.appParts.length || (rest === "" ? up === 0 : !isInsidePath(rest))) return undefined;
    return [...this.appParts.slice(0, this.appParts.length - up), ...(rest ? [rest] : [])].join("/");
  }

  /**
   * The real path of `relative` inside the boundary: each part that is a link must resolve inside it, each folder
   * on the way must be a folder, what is there must be a regular file or nothing, and each must be trusted.
   */
  private locate(relative: string): string {
    const fromBoundary = this.inside(relative);
    if (!fromBoundary) refuse(`${JSON.stringify(relative)} is not a path inside the host folder`);
    const parts = fromBoundary.split("/");
    let current = this.boundary;
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
        if (path.relative(this.boundary, target).split(path.sep)[0] === "..")
          refuse(`${shown} is a link to ${target}, outside the host folder`);
        this.trust(target);
        current = target;
      } else {
        current = next;
        if (this.trusting) refuseUntrusted(current);
      }
      const last = i === parts.length - 1;
      const kind = lstatSync(current);
      if (!last && !kind.isDirectory()) refuse(`${shown} is not a folder`);
      if (last && !kind.isFile()) refuse(`${shown} is not a regular file`);
    }
    return current;
  }

  /**
   * The files and the folders (no links) in a folder inside the boundary; none where there is no folder. A link that
   * is not to a folder is one of the files, as Prisma reads a schema folder, once locate has checked it (refused when
   * it leaves the boundary, leads nowhere or is not to a regular file); the links to folders, unchecked, on their own.
   */
  list(relative: string): { files: string[]; folders: string[]; linkedFolders: string[] } {
    const within = relative.replace(/([^.])\/$/, "$1");
    const fromBoundary = relative === "" ? this.appParts.join("/") : this.inside(within);
    if (fromBoundary === undefined) refuse(`${JSON.stringify(relative)} is not a path inside the host folder`);
    const folder = path.join(this.boundary, fromBoundary);
    const real = lstatOrUndefined(folder)?.isDirectory() ? realpathSync(folder) : undefined;
    if (!real || path.relative(this.boundary, real).split(path.sep)[0] === "..")
      return { files: [], folders: [], linkedFolders: [] };
    this.trust(real);
    const entries = readdirSync(real, { withFileTypes: true });
    const linked = entries.filter(
      (e) =>
        e.isSymbolicLink() &&
        !statOrUndefined(path.join(real, e.name))?.isDirectory() &&
        this.locate(`${within ? `${within}/` : ""}${e.name}`),
    );
    return {
      files: [...entries.filter((e) => e.isFile()), ...linked].map((e) => e.name).sort(),
      folders: entries.filter((e) => e.isDirectory()).map((e) => e.name),
      linkedFolders: entries
        .filter((e) => e.isSymbolicLink() && statOrUndefined(path.join(real, e.name))?.isDirectory())
        .map((e) => e.name),
    };
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
    const before = previous ? previous.before : this.read(relative);
    const mode = previous ? previous.mode : before && lstatSync(file).mode & 0o777;
    this.staged.set(relative, { file, content, before, mode });
  }

  /**
   * Writes every staged change, then removes the folders its removals left empty; on a failure, puts back what it had
   * changed (each file's bytes and mode, the files it made removed, then the folders it made) and refuses, naming the
   * file; where something cannot be put back, names that too (PartlyWritten).
   */
  apply(): void {
    const done: [string, Staged][] = [];
    const madeFolders: string[] = [];
    try {
      for (const [relative, change] of this.staged) {
        // Listed first: a write that fails part way (a file truncated, then not written) is put back too.
        done.push([relative, change]);
        if (change.content === null) {
          if (change.before !== undefined) rmSync(change.file);
        } else {
          const made = mkdirSync(path.dirname(change.file), { recursive: true, mode: 0o755 });
          if (made) madeFolders.push(made);
          writeNoFollow(change.file, change.content);
        }
      }
    } catch (error) {
      const failed = done.at(-1)?.[0];
      const notBack: string[] = [];
      for (const [relative, change] of done.reverse()) {
        if (!putBack(change)) notBack.push(relative);
      }
      for (const folder of madeFolders.reverse()) rmSync(folder, { recursive: true, force: true });
      const why = `${failed} could not be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
      if (notBack.length)
        throw new PartlyWritten(
          `${why}, and ${notBack.join(", ")} could not be put back as ${notBack.length > 1 ? "they were" : "it was"}: ` +
            "restore them from version control",
        );
      refuse(why);
    }
    const removed = [...this.staged].filter(([, change]) => change.content === null).map(([relative]) => relative);
    this.staged.clear();
    for (const file of removed) this.pruneEmptyFolders(file);
  }

  /** Removes the folders left empty by removed files, from `relative`'s folder up to the host folder. */
  pruneEmptyFolders(relative: string): void {
    for (let dir = path.posix.dirname(relative); !/^(\.|(\.\.\/)*\.\.)$/.test(dir); dir = path.posix.dirname(dir)) {
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

/** Puts back what a change replaced: whether the path is as it was (a file the change created: none there). */
function putBack({ file, before, mode }: Staged): boolean {
  let now: Stats | undefined;
  try {
    now = lstatSync(file);
  } catch {
    now = undefined; // nothing there, or no folder for it
  }
  try {
    if (before === undefined) {
      if (now?.isFile()) rmSync(file);
    } else if (now && !now.isFile()) return false;
    else writeNoFollow(file, before, mode);
    return true;
  } catch {
    return false;
  }
}

/** Writes a file, never through a link; one it creates gets `mode` (put back as it was), else 0644. */
function writeNoFollow(file: string, content: string | Buffer, mode?: number): void {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    // Neither group nor others may write what the install writes: the next run would not trust it.
    mode ?? 0o644,
  );
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error("not a regular file"), { code: "ENOTREG" });
    if (mode !== undefined && (stat.mode & 0o777) !== mode) fchmodSync(fd, mode);
    writeFileSync(fd, content);
  } finally {
    closeSync(fd);
  }
}
