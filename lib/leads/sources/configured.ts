import { z } from "zod/v4";
import defaultSources from "@/lib/leads/sources/default-sources.json";
import { source } from "@/lib/leads/schemas";

const configuredSources = z.array(source.pick({ name: true, type: true }));

/** The configured default sources: LEADS_DEFAULT_SOURCES (a JSON array) or else default-sources.json. */
export function readConfiguredSources(): z.infer<typeof configuredSources> {
  const configured = process.env.LEADS_DEFAULT_SOURCES;
  return configuredSources.parse(configured ? JSON.parse(configured) : defaultSources);
}
