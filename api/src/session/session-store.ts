import type { Database } from '@vigia/db';

/** The registry facts `GET /v1/me` adds to what the token resolver already knows. */
export class SessionStore {
  constructor(private readonly db: Database) {}

  /** The user's registry name; null if the user was removed between the token check and now. */
  async userName(userId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ name: string }>('SELECT name FROM users WHERE id = $1', [userId]);
    return rows[0]?.name ?? null;
  }
}
