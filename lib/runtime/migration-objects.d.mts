/** The migrations' names in order, the triggers they leave (`table.trigger`), and their functions' bodies by name. */
export function migrationObjects(migrationsDir: string): {
  migrations: string[];
  triggers: string[];
  functions: Record<string, string>;
};
