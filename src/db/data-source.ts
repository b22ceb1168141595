import { DataSource } from 'typeorm';
import type { MysqlConfig } from '../config.js';
import { migrations } from '../../migrations/index.js';

/** One TypeORM data source over mysql2; works against MySQL 8 and MariaDB 10.11 alike. */
export function createDataSource(cfg: MysqlConfig): DataSource {
  return new DataSource({
    type: 'mysql',
    host: cfg.host,
    port: cfg.port,
    username: cfg.user,
    password: cfg.password,
    database: cfg.database,
    poolSize: cfg.poolSize,
    connectTimeout: cfg.connectTimeoutMs,
    migrations,
    migrationsTableName: 'typeorm_migrations',
    logging: false,
  });
}
