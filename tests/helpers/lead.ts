import { PROJECT_TYPES, RELATIONSHIPS, type OptionalFieldName } from "@/lib/leads/fields";

/**
 * A valid lead with only the spec's required fields: a source name as the Introducer, unassigned. `overrides` replace
 * or add fields; a test that sends a broken field on purpose says so through them.
 */
export function validLead<O extends object = object>(overrides?: O): Omit<RequiredFields, keyof O> & O {
  return { ...REQUIRED, ...overrides } as unknown as Omit<RequiredFields, keyof O> & O;
}

const REQUIRED = { leadName: "Ali bin Abu", leadMobileNumber: "012-345 6789", referrer: "Facebook Ads" };
type RequiredFields = typeof REQUIRED;

/** A value of every optional field of the table (lib/leads/fields.ts), each valid under its schema. */
export const EVERY_OPTIONAL_FIELD = {
  leadState: "Selangor",
  leadCity: "Petaling Jaya",
  leadAddress: "12 Jalan SS 2/24, 47300 Petaling Jaya",
  relationship: RELATIONSHIPS[1],
  projectType: PROJECT_TYPES[0],
  remark: "Prefers a call after 6 pm",
} satisfies Record<OptionalFieldName, string>;

/** A valid lead with every optional field set (still unassigned: assignment needs a sales user in the database). */
export function leadWithEveryField<O extends object = object>(overrides?: O) {
  return validLead({ ...EVERY_OPTIONAL_FIELD, ...overrides });
}
