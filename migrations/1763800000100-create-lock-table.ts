import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The lock table (course §4): a unique lock name is the mutual exclusion; the rest is bookkeeping. */
export class CreateLockTable1763800000100 implements MigrationInterface {
  name = 'CreateLockTable1763800000100';

  async up(q: QueryRunner): Promise<void> {
    // owner: instance:request token, checked on every release. reentrant_count: nested acquires
    // by the same owner. expires_at (DB clock, ms): a crashed holder's row may be reclaimed after it.
    await q.query(`
      CREATE TABLE tb_lock (
        id BIGINT NOT NULL AUTO_INCREMENT,
        lock_name VARCHAR(191) NOT NULL,
        owner VARCHAR(191) NOT NULL,
        reentrant_count INT NOT NULL DEFAULT 1,
        expires_at DATETIME(3) NOT NULL,
        created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
        PRIMARY KEY (id),
        UNIQUE KEY uk_tb_lock_name (lock_name)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tb_lock');
  }
}
