import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Two more token sources fence the stock: etcd's create revisions and PostgreSQL's sequence. */
export class FencesEtcdPostgres1763800000400 implements MigrationInterface {
  name = 'FencesEtcdPostgres1763800000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE db_stock
        ADD COLUMN fence_etcd BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN fence_postgres BIGINT NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE db_stock DROP COLUMN fence_etcd, DROP COLUMN fence_postgres');
  }
}
