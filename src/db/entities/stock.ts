import { Column, Entity, Index, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';

/** BIGINT comes back from mysql2 as a string; a version stays far below 2^53, so it is read as a number. */
const bigintAsNumber = { to: (v: unknown) => v, from: (v: unknown) => (v == null ? v : Number(v)) };

/**
 * The course's stock row (migrations/1763800000000-create-stock.ts is the schema; this entity only
 * maps it, `synchronize` stays off). Every column type is spelled out, so no decorator metadata is
 * needed. `version` is a @VersionColumn: TypeORM adds `version = version + 1` to every UPDATE its
 * QueryBuilder sends for this entity, unless the UPDATE sets `version` itself (reset does).
 */
@Entity({ name: 'db_stock' })
@Index('uk_db_stock_product_stock', ['productCode', 'stockCode'], { unique: true })
export class StockRow {
  /** BIGINT, as mysql2 returns it: a string. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'product_code', type: 'varchar', length: 64 })
  productCode!: string;

  @Column({ name: 'stock_code', type: 'varchar', length: 64 })
  stockCode!: string;

  @Column({ name: 'count', type: 'int' })
  count!: number;

  // TypeORM maps every @VersionColumn to the driver's version type (INT on MySQL) whatever `type`
  // says (typeorm/typeorm#2676): the table keeps the migration's BIGINT, and values are read as numbers.
  @VersionColumn({ name: 'version', type: 'bigint', default: 0, transformer: bigintAsNumber })
  version!: number;

  /** The largest fencing token each source has claimed the row with (BIGINT, as strings). */
  @Column({ name: 'fence_redis', type: 'bigint', default: 0 })
  fenceRedis!: string;

  @Column({ name: 'fence_zookeeper', type: 'bigint', default: 0 })
  fenceZookeeper!: string;

  @Column({ name: 'fence_lock_table', type: 'bigint', default: 0 })
  fenceLockTable!: string;

  @Column({ name: 'fence_etcd', type: 'bigint', default: 0 })
  fenceEtcd!: string;

  @Column({ name: 'fence_postgres', type: 'bigint', default: 0 })
  fencePostgres!: string;
}
