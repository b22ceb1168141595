import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fencing and sale records (the fault lab). db_stock gets one fence per token source: tokens from
 * different counters are not comparable, so they cannot share a column. tb_sale records the request
 * id of every deduction that committed, in the same transaction, so a request deducted twice (a
 * proxy resending it) shows up as two rows. No unique key on purpose: it measures, it does not prevent.
 */
export class FencesAndSales1763800000200 implements MigrationInterface {
  name = 'FencesAndSales1763800000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE db_stock
        ADD COLUMN fence_redis BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN fence_zookeeper BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN fence_lock_table BIGINT NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE tb_sale (
        id BIGINT NOT NULL AUTO_INCREMENT,
        request_id VARCHAR(64) NOT NULL,
        created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
        PRIMARY KEY (id),
        KEY idx_tb_sale_request (request_id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tb_sale');
    await q.query('ALTER TABLE db_stock DROP COLUMN fence_redis, DROP COLUMN fence_zookeeper, DROP COLUMN fence_lock_table');
  }
}
