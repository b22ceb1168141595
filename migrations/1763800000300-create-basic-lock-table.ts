import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The course's own lock table (§4.2), for mysql-lock-table-basic: a unique lock_name and who took
 * it, nothing else: no expiry, no hold count. Apart from tb_lock, whose expires_at and owner
 * columns the fixed lock needs, so neither lock ever meets the other's rows.
 */
export class CreateBasicLockTable1763800000300 implements MigrationInterface {
  name = 'CreateBasicLockTable1763800000300';

  async up(q: QueryRunner): Promise<void> {
    // server_name: the owner token (the course records server and thread), for inspection only.
    await q.query(`
      CREATE TABLE tb_lock_basic (
        id BIGINT NOT NULL AUTO_INCREMENT,
        lock_name VARCHAR(191) NOT NULL,
        server_name VARCHAR(191) NULL,
        create_time DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
        PRIMARY KEY (id),
        UNIQUE KEY uk_tb_lock_basic_name (lock_name)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tb_lock_basic');
  }
}
