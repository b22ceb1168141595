import { DataSource } from 'typeorm';
import type { MysqlConfig } from '../config.js';
import { MYSQL_STATEMENT_TIMEOUT_MS_DEFAULT } from '../env.js';
import { migrations } from '../../migrations/index.js';
import { boundStatements } from './connections.js';
import { entities } from './entities/index.js';

/** Waiters for a pooled connection per instance: far above the course's 100 clients. */
const POOL_QUEUE_LIMIT = 1_000;

/**
 * One TypeORM data source over mysql2; works against MySQL 8 and MariaDB 10.11 alike. The entities
 * map the tables; the migrations create them and stay the schema's only source (no synchronize).
 */
export function createDataSource(cfg: MysqlConfig): DataSource {
  const db = new DataSource({
    type: 'mysql',
    host: cfg.host,
    port: cfg.port,
    username: cfg.user,
    password: cfg.password,
    database: cfg.database,
    poolSize: cfg.poolSize,
    connectTimeout: cfg.connectTimeoutMs,
    // mysql2's queue of requests waiting for a connection, bounded (each waits at most its own
    // deadline too, see connections.ts): beyond it, a fast 503 busy.
    extra: { queueLimit: POOL_QUEUE_LIMIT },
    entities,
    migrations,
    synchronize: false,
    migrationsTableName: 'typeorm_migrations',
    logging: false,
  });
  // Every statement run through onConnection answers or is given up on within this (connections.ts).
  boundStatements(db, cfg.statementTimeoutMs ?? MYSQL_STATEMENT_TIMEOUT_MS_DEFAULT);
  return db;
}
