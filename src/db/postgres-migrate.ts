// Creates the lab's PostgreSQL database when missing and runs the migrations it has not run yet
// (migrations/postgres); running it again changes nothing.
import pg from 'pg';
import { postgresMigrations } from '../../migrations/postgres/index.js';
import type { PostgresConfig } from '../config.js';

const CONNECT_TIMEOUT_MS = 5_000;

/** A double-quoted identifier. */
const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

async function withClient<T>(cfg: PostgresConfig, database: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    host: cfg.host,
    port: cfg.port,
    user: cfg.user,
    password: cfg.password,
    database,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function runPostgresMigrations(cfg: PostgresConfig): Promise<string[]> {
  await withClient(cfg, 'postgres', async (c) => {
    const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [cfg.database]);
    if (found.rowCount === 0) await c.query(`CREATE DATABASE ${ident(cfg.database)} ENCODING 'UTF8'`);
  });
  return withClient(cfg, cfg.database, async (c) => {
    await c.query('CREATE TABLE IF NOT EXISTS pg_migrations (name TEXT PRIMARY KEY, run_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const done = new Set((await c.query<{ name: string }>('SELECT name FROM pg_migrations')).rows.map((r) => r.name));
    const ran: string[] = [];
    for (const m of postgresMigrations) {
      if (done.has(m.name)) continue;
      await c.query('BEGIN');
      try {
        for (const sql of m.statements) await c.query(sql);
        await c.query('INSERT INTO pg_migrations (name) VALUES ($1)', [m.name]);
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw new Error(`postgres migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      ran.push(m.name);
    }
    return ran;
  });
}
