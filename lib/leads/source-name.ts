/** A source name as stored and shown: trimmed, runs of white space made one space. */
export function cleanSourceName(name: string): string {
  return name.trim().replace(/\s+/g, " ");
}

/**
 * The key under which a source name is unique: case and repeated spaces ignored.
 * Its SQL twin is in prisma/migrations/*_lead_intake (registering existing host
 * sources) and in namedSource (finding sources the host added later).
 */
export function sourceKey(name: string): string {
  return cleanSourceName(name).toLowerCase();
}
