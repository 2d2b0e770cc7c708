// The embedded cluster's superuser password: random per cluster, kept 0600 in <data folder>.password, and read by
// every user of the embedded URL through embeddedUrl.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchownSync,
  fstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { shownPath, StartupError } from "./postgres-user.mjs";

/**
 * The password file of the cluster whose data folder is `dir`: beside it, not in it (the postgres user owns that).
 * @param {string} dir
 */
export function passwordFile(dir) {
  return `${path.resolve(dir)}.password`;
}

export function newPassword() {
  return randomBytes(32).toString("base64url");
}

/**
 * The password of the cluster in `dir`, or null when it has none on file. Read only from a regular file of this
 * user that no one else can read, without following a link: anything else is refused in one sentence.
 * @param {string} dir
 * @returns {string | null}
 */
export function readPassword(dir) {
  const file = passwordFile(dir);
  let fd;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const { code } = /** @type {NodeJS.ErrnoException} */ (error);
    if (code === "ENOENT") return null;
    throw untrusted(file, code);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0)
      throw untrusted(file, `mode ${(stat.mode & 0o777).toString(8)}, uid ${stat.uid}`);
    return readFileSync(fd, "utf8").trim();
  } finally {
    closeSync(fd);
  }
}

/**
 * @param {string} file
 * @param {string | undefined} why
 */
function untrusted(file, why) {
  return new StartupError(
    `${shownPath(file)} is not a private file of this user (${why}); remove it and start again, and the embedded database gets a new password`,
  );
}

/**
 * Writes `text` to a new file created 0600 with O_EXCL (never through a planted link, never readable by others),
 * then renames it over `file`, so readers see the old or the whole new one.
 * @param {string} file
 * @param {string} text
 * @param {{ uid?: number, gid?: number }} [owner]
 */
export function writePrivateFile(file, text, owner) {
  const partial = `${file}.${randomBytes(4).toString("hex")}`;
  const fd = openSync(partial, "wx", 0o600);
  try {
    if (owner?.uid !== undefined) fchownSync(fd, owner.uid, /** @type {number} */ (owner.gid));
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}
