import { chmodSync, chownSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { asRoot } from "../helpers/embedded-cluster";
import { expectRefused, hostCopy, runHostScript } from "../helpers/host-install-run";

/**
 * Host folders whose files the install must not take as the host's: a workspace root above the app that another
 * user owns or every user can write, a folder of the host its group can write, a schema file linked out of the
 * host, and an alias that is a path out of the app. Each is refused in one sentence, exit 1, with the host and
 * what lies beside it byte for byte as before; a link inside the host is read as Prisma reads it.
 */
const NOBODY = 65534;

let folders: ReturnType<typeof hostCopy> | undefined;
afterEach(() => {
  if (folders) rmSync(folders.parent, { recursive: true, force: true });
  folders = undefined;
});

/** A copy of the fixture host, with a folder beside it (a package another user could have put there). */
function arrange() {
  folders = hostCopy();
  mkdirSync(folders.outside);
  return folders;
}

const refused = (sentence: string) => {
  const { host, outside } = folders!;
  expectRefused([host, outside], "install", [host], `host:install: ${sentence}; nothing was changed.`);
};

/** A package.json above the app whose workspaces list it, and a package of it named like one of the app's. */
function plantWorkspace(parent: string, outside: string): string {
  const manifest = path.join(parent, "package.json");
  writeFileSync(manifest, JSON.stringify({ name: "evil", workspaces: ["host", "outside"] }));
  writeFileSync(path.join(outside, "package.json"), JSON.stringify({ name: "@prisma/client" }));
  return manifest;
}

describe("host:install trusts only folders the user running it owns", { timeout: 120_000 }, () => {
  it("a world-writable parent holding another user's package.json that makes the app its workspace package", () => {
    const { parent, outside } = arrange();
    const manifest = plantWorkspace(parent, outside);
    if (asRoot) chownSync(manifest, NOBODY, NOBODY);
    chmodSync(parent, 0o777);
    refused(
      `${manifest} makes the app a package of its workspace, but ${parent} can be written by every user ` +
        "(mode 777), so it is not the host's to trust: chmod go-w it",
    );
  });

  it.runIf(asRoot)("a parent of the user's own holding another user's package.json that makes it a workspace", () => {
    const { parent, outside } = arrange();
    const manifest = plantWorkspace(parent, outside);
    chownSync(manifest, NOBODY, NOBODY);
    refused(
      `${manifest} makes the app a package of its workspace, but ${manifest} belongs to another user ` +
        `(uid ${NOBODY}), so it is not the host's to trust: chown it to the host's user`,
    );
  });

  it("a folder of the host its group can write, where the install reads and writes (lib/)", () => {
    const { host } = arrange();
    chmodSync(path.join(host, "lib"), 0o775);
    refused(
      `${path.join(host, "lib")} can be written by its group (mode 775), so it is not the host's to trust: chmod go-w it`,
    );
  });

  it.runIf(asRoot)("the host's package.json owned by another user", () => {
    const { host } = arrange();
    chownSync(path.join(host, "package.json"), NOBODY, NOBODY);
    refused(
      `${path.join(host, "package.json")} belongs to another user (uid ${NOBODY}), so it is not the host's to trust: ` +
        "chown it to the host's user",
    );
  });
});

/** The fixture's schema as a folder (package.json's prisma.schema) whose AuditEntry is in a file linked from it. */
function schemaFolderWithLink(host: string, linkTarget: (auditText: string) => string): string {
  const schema = readFileSync(path.join(host, "prisma/schema.prisma"), "utf8");
  const audit = /\nmodel AuditEntry \{[^}]*\}\n/.exec(schema)![0];
  mkdirSync(path.join(host, "prisma/schema"));
  writeFileSync(path.join(host, "prisma/schema/schema.prisma"), schema.replace(audit, "\n"));
  rmSync(path.join(host, "prisma/schema.prisma"));
  renameSync(path.join(host, "prisma/migrations"), path.join(host, "prisma/schema/migrations"));
  const manifest = JSON.parse(readFileSync(path.join(host, "package.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(path.join(host, "package.json"), JSON.stringify({ ...manifest, prisma: { schema: "prisma/schema" } }));
  const target = linkTarget(audit.trimStart());
  symlinkSync(target, path.join(host, "prisma/schema/audit_entry.prisma"));
  return target;
}

describe("a symlinked file in a schema folder is read as Prisma reads it, or refused", { timeout: 120_000 }, () => {
  it("linked inside the host: followed, so the host's AuditEntry is not written a second time", () => {
    const { host } = arrange();
    schemaFolderWithLink(host, (audit) => {
      mkdirSync(path.join(host, "prisma/audit"));
      writeFileSync(path.join(host, "prisma/audit/audit_entry.prisma"), audit);
      return "../audit/audit_entry.prisma";
    });
    const result = runHostScript("install", [host]);
    expect(result.status, result.stderr).toBe(0);
    // The model is not added; its index (AuditEntry@@index([referralId])) goes into the host's, through the link.
    expect(result.stdout).not.toMatch(/added[^\n]*\bAuditEntry\b(?!@@)/);
    const added = readFileSync(path.join(host, "prisma/schema/lead_intake.prisma"), "utf8");
    expect(added).not.toContain("model AuditEntry");
    const linked = readFileSync(path.join(host, "prisma/schema/audit_entry.prisma"), "utf8");
    expect(linked).toMatch(/^model AuditEntry /);
    expect(linked).toContain("\n  @@index([referralId])\n}");
  });

  it("linked out of the host: refused, and the file it points at is not read into the schema", () => {
    const { host, outside } = arrange();
    const target = schemaFolderWithLink(host, (audit) => {
      writeFileSync(path.join(outside, "audit_entry.prisma"), audit);
      return path.join(outside, "audit_entry.prisma");
    });
    refused(`prisma/schema/audit_entry.prisma is a link to ${target}, outside the host folder`);
  });
});

describe("the tsconfig alias must map inside the app", { timeout: 120_000 }, () => {
  it('"../../outside/*" mapped to ./*: refused, as every copied import would leave the app', () => {
    const { host } = arrange();
    const file = path.join(host, "tsconfig.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"@/*": ["./*"]', '"../../outside/*": ["./*"]'));
    refused(
      `tsconfig.json's alias "../../outside/*" is a path, so the module's imports would leave the app; ` +
        'map a name such as "@/*" to ./*',
    );
  });
});
