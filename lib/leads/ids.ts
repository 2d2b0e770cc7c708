import { randomUUID } from "node:crypto";

/**
 * Customer ids: "src_" for source accounts (the spec's only visible format), "cus_"
 * for persons, then 122 random bits. randomUUID draws from a cached pool of random
 * bytes, so it is cheaper than randomBytes (docs/decisions.md, "Per-request work computed once").
 */
export function newCustomerId(kind: "source" | "person"): string {
  return `${kind === "source" ? "src" : "cus"}_${randomUUID().replaceAll("-", "")}`;
}
