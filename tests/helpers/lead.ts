import { z } from "zod/v4";
import { OPTIONAL_FIELD_NAMES, OPTIONAL_LEAD_FIELDS, type OptionalFieldName } from "@/lib/leads/fields";

/**
 * A valid lead with only the spec's required fields: a source name as the Introducer, unassigned. `overrides` replace
 * or add fields; a test that sends a broken field on purpose says so through them.
 */
export function validLead<O extends object = object>(overrides?: O): Omit<RequiredFields, keyof O> & O {
  return { ...REQUIRED, ...overrides } as unknown as Omit<RequiredFields, keyof O> & O;
}

const REQUIRED = { leadName: "Ali bin Abu", leadMobileNumber: "012-345 6789", referrer: "Facebook Ads" };
type RequiredFields = typeof REQUIRED;

/** A value of every optional field of the table (lib/leads/fields.ts), so a new field gets one too. */
export const EVERY_OPTIONAL_FIELD = Object.fromEntries(
  OPTIONAL_FIELD_NAMES.map((name) => [name, validValue(name)]),
) as Record<OptionalFieldName, string>;

/** A choice's first value other than its default; for free text, a few words naming the field. */
function validValue(name: OptionalFieldName): string {
  const { input, omitted } = OPTIONAL_LEAD_FIELDS[name];
  const schema = input.unwrap();
  if (schema instanceof z.ZodEnum) return (schema.options as string[]).find((value) => value !== omitted)!;
  return `Given ${name}`;
}

/** A valid lead with every optional field set (still unassigned: assignment needs a sales user in the database). */
export function leadWithEveryField<O extends object = object>(overrides?: O) {
  return validLead({ ...EVERY_OPTIONAL_FIELD, ...overrides });
}
