export interface EmbeddedPostgresServer {
  /** URL of the database asked for. */
  url: string;
  /** URL of any database of the same cluster. */
  urlOf(database: string): string;
  stop(): Promise<void>;
}

export function startEmbeddedPostgres(options: {
  dir: string;
  port: number;
  database: string;
  persistent?: boolean;
}): Promise<EmbeddedPostgresServer>;
