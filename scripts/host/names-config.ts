import { HOST_FIELDS, type HostModel } from "@/lib/db/host-names";

/**
 * The host's names for the module's host models (docs/host-guide.md, "Your names"): lead-intake.config.json at the
 * root of the host app. A model or field left out is the host's of the same name.
 */
export const CONFIG_FILE = "lead-intake.config.json";

export interface ModelConfig {
  /** The host's Prisma model. */
  model?: string;
  /** The host's Prisma field of each module field; null where the host has none (NULLABLE_FIELDS only). */
  fields?: Record<string, string | null>;
}

export interface NamesConfig {
  models: Partial<Record<HostModel, ModelConfig | null>>;
}

export const HOST_MODELS = Object.keys(HOST_FIELDS) as HostModel[];
/** The model a host may lack: the module then writes no audit rows. */
export const NULLABLE_MODEL: HostModel = "AuditEntry";
/** The fields a host may lack, which lib/db/layout.ts detects: the legacy layout. */
export const NULLABLE_FIELDS = new Set(["User.accessLevels", "Referral.assignedAgentId"]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const list = (names: readonly string[]) => names.join(", ");

/**
 * The config file's text read and checked against the module's models and fields: the config, or one sentence per
 * problem, each naming the key and its fix.
 */
export function parseNamesConfig(text: string): { config: NamesConfig; problems: [] } | { problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problems: [`${CONFIG_FILE} is not valid JSON (${(error as Error).message})`] };
  }
  const problems: string[] = [];
  const say = (key: string, problem: string) => problems.push(`${CONFIG_FILE}: ${key} ${problem}`);
  if (!isObject(json) || !isObject(json.models))
    return { problems: [`${CONFIG_FILE} must be an object with "models": { "Customer": { "model": ... }, ... }`] };
  for (const key of Object.keys(json).filter((k) => k !== "models"))
    say(key, `is not a key of the file; the only one is "models"`);
  for (const [name, entry] of Object.entries(json.models)) {
    const key = `models.${name}`;
    if (!(HOST_MODELS as string[]).includes(name)) {
      say(key, `is not a model of the module's; the models are ${list(HOST_MODELS)}`);
      continue;
    }
    const model = name as HostModel;
    if (entry === null) {
      if (model !== NULLABLE_MODEL)
        say(key, `is null; only ${NULLABLE_MODEL} may be, so name the host's model: { "model": "..." }`);
      continue;
    }
    if (!isObject(entry)) {
      say(key, `must be an object { "model": "...", "fields": { ... } }${model === NULLABLE_MODEL ? " or null" : ""}`);
      continue;
    }
    for (const k of Object.keys(entry).filter((k) => k !== "model" && k !== "fields"))
      say(`${key}.${k}`, `is not a key of a model; the keys are "model" and "fields"`);
    if ("model" in entry && (typeof entry.model !== "string" || entry.model === ""))
      say(`${key}.model`, "must be the name of a model of the host's schema");
    if (!("fields" in entry)) continue;
    if (!isObject(entry.fields)) {
      say(`${key}.fields`, `must be an object of the module's field names to the host's`);
      continue;
    }
    const fields = HOST_FIELDS[model] as readonly string[];
    for (const [field, value] of Object.entries(entry.fields)) {
      const fieldKey = `${key}.fields.${field}`;
      if (!fields.includes(field)) say(fieldKey, `is not a field of the module's ${model}; they are ${list(fields)}`);
      else if (value === null) {
        if (!NULLABLE_FIELDS.has(`${model}.${field}`))
          say(fieldKey, `is null; only ${list([...NULLABLE_FIELDS])} may be, so name the host's field`);
      } else if (typeof value !== "string" || value === "")
        say(fieldKey, "must be the name of a field of the host's model");
    }
  }
  return problems.length ? { problems } : { config: json as unknown as NamesConfig, problems: [] };
}
