import { randomBytes } from "node:crypto";

/** Customer ids: "src_" for source accounts (the spec's only visible format), "cus_" for persons. */
export function newCustomerId(kind: "source" | "person"): string {
  return `${kind === "source" ? "src" : "cus"}_${randomBytes(12).toString("hex")}`;
}
