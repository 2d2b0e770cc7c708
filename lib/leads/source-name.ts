/** A source name as stored and shown: trimmed, runs of white space made one space. */
export function cleanSourceName(name: string): string {
  return name.trim().replace(/\s+/g, " ");
}

/**
 * The key under which a source name is unique: case and repeated spaces ignored.
 * The SQL twin in prisma/migrations/*_lead_intake registers existing host sources.
 */
export function sourceKey(name: string): string {
  return cleanSourceName(name).toLowerCase();
}
