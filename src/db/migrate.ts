import type { MysqlConfig } from '../config.js';
import { createDataSource } from './data-source.js';

/** Creates the schema and seeds the stock row; running it again changes nothing. */
export async function runMigrations(cfg: MysqlConfig): Promise<string[]> {
  const ds = createDataSource({ ...cfg, poolSize: 1 });
  await ds.initialize();
  try {
    const ran = await ds.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
