import pg from 'pg';

/** One client of a PostgreSQL server for `fn`, ended afterwards whatever `fn` does (the template set-up, the scale tests). */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
