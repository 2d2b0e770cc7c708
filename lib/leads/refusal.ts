/**
 * Why the domain refuses a valid request: the referrer or agent it names does not exist, or the host cannot store an
 * assignment. The domain knows nothing of HTTP; the request wrapper (lib/api/route.ts) answers each reason with the
 * error code of the same name, whose status, message and retry advice live in the error table (lib/api/errors.ts).
 */
export type RefusalReason = "INVALID_REFERRER" | "INVALID_AGENT" | "ASSIGNMENT_NOT_CONFIGURED";

export class LeadRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    /** A more specific text than the error table's message, when the reason has several causes. */
    readonly detail?: string,
  ) {
    super(detail ?? reason);
    this.name = "LeadRefusal";
  }
}
