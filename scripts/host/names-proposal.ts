import type { Model, Schema } from "@mrleebo/prisma-ast";
import { HOST_FIELDS, type HostModel } from "@/lib/db/host-names";
import { CONFIG_FILE, HOST_MODELS, NULLABLE_FIELDS, NULLABLE_MODEL, type NamesConfig } from "./names-config";
import { columnFields, columnOf, fields, models, tableOf } from "./check/prisma-names";

/** Names CRMs give the module's models and fields, for the install's guesses (lower case). */
const LIKELY: Record<string, string[]> = {
  Customer: ["contact", "client", "person", "customer", "customers"],
  User: ["member", "agent", "staff", "account", "employee", "user", "users"],
  Referral: ["deal", "lead", "opportunity", "referral", "referrals"],
  AuditEntry: ["activitylog", "auditlog", "activity", "audit", "log", "auditentry", "audit_entries"],
  mobileNumber: ["phone", "phonenumber", "mobile", "mobilephone", "mobile_number"],
  name: ["fullname", "displayname", "title"],
  leadName: ["name", "title", "contactname"],
  platformId: ["externalref", "externalid", "platformid"],
  accessLevels: ["roles", "permissions", "accesslevels"],
  status: ["stage", "state"],
  remark: ["notes", "note", "comment", "description"],
  referrerCustomerId: ["contactid", "introducerid", "referrerid"],
  leadCustomerId: ["leadcontactid", "leadid"],
  assignedAgentId: ["ownerid", "memberid", "assigneeid", "agentid"],
  referralId: ["dealid"],
  actor: ["by", "userid", "memberid"],
  sourceType: ["source", "sourcekind"],
};

const squash = (name: string) => name.toLowerCase().replace(/_/g, "");

/** How like the module's model a host model is: its name or table, then the fields it has of the module's. */
function likeness(wanted: Model, own: Model): number {
  const names = (LIKELY[wanted.name] ?? []).map(squash);
  const named = names.includes(squash(own.name)) || squash(tableOf(own)) === squash(tableOf(wanted)) ? 10 : 0;
  const ownNames = new Set(fields(own).map((f) => squash(f.name)));
  return named + fields(wanted).filter((f) => ownNames.has(squash(f.name))).length;
}

/** The host's field most like a module field: its name in another case, its column, or a name CRMs give it. */
function likelyField(schema: Schema, own: Model, name: string, column: string): string | undefined {
  const candidates = columnFields(schema, own);
  const match = (test: (squashed: string, columnName: string) => boolean) =>
    candidates.find((f) => test(squash(f.name), squash(columnOf(f))))?.name;
  return (
    match((n, c) => n === squash(name) || c === squash(column)) ??
    (LIKELY[name] ?? []).map(squash).reduce<string | undefined>((hit, s) => hit ?? match((n) => n === s), undefined)
  );
}

/**
 * A config file of best guesses for the models the host's schema lacks by the module's names (`missing`), and the
 * one sentence the install says: what it wrote and what to review.
 */
export function proposedConfig(
  moduleSchema: Schema,
  host: Schema,
  missing: HostModel[],
): { config: NamesConfig; sentence: string } {
  const config: NamesConfig = { models: {} };
  const taken = new Set(HOST_MODELS.filter((m) => !missing.includes(m)));
  const guesses: string[] = [];
  for (const name of missing) {
    const wanted = models(moduleSchema).find((m) => m.name === name)!;
    const best = models(host)
      .filter((m) => !taken.has(m.name as HostModel))
      .map((own) => ({ own, score: likeness(wanted, own) }))
      .sort((a, b) => b.score - a.score)[0];
    if (!best || best.score === 0) {
      config.models[name] = name === NULLABLE_MODEL ? null : { model: `<the host's model of ${name}>` };
      guesses.push(name === NULLABLE_MODEL ? `${name} as none` : `${name} (no guess)`);
      continue;
    }
    taken.add(best.own.name as HostModel);
    const mapped: Record<string, string | null> = {};
    for (const field of fields(wanted).filter((f) => (HOST_FIELDS[name] as readonly string[]).includes(f.name))) {
      if (fields(best.own).some((f) => f.name === field.name)) continue;
      const guess = likelyField(host, best.own, field.name, columnOf(field));
      if (guess) mapped[field.name] = guess;
      else if (NULLABLE_FIELDS.has(`${name}.${field.name}`)) mapped[field.name] = null;
    }
    config.models[name] = Object.keys(mapped).length
      ? { model: best.own.name, fields: mapped }
      : { model: best.own.name };
    guesses.push(`${name} as ${best.own.name}`);
  }
  return {
    config,
    sentence:
      `the host's schema has no model ${missing.join(", ")} by the module's names, so ${CONFIG_FILE} was written ` +
      `with guesses (${guesses.join(", ")}): review each model and field in it, then run the install again`,
  };
}
