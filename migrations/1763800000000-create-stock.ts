import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The course's stock table: product 1001 in warehouse 001 starts with 5000 units. */
export class CreateStock1763800000000 implements MigrationInterface {
  name = 'CreateStock1763800000000';

  async up(q: QueryRunner): Promise<void> {
    // `version` serves the optimistic strategy; the unique key lets every query address the row
    // by what it is (product, warehouse) instead of a surrogate id.
    await q.query(`
      CREATE TABLE db_stock (
        id BIGINT NOT NULL AUTO_INCREMENT,
        product_code VARCHAR(64) NOT NULL,
        stock_code VARCHAR(64) NOT NULL,
        \`count\` INT NOT NULL,
        version BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (id),
        UNIQUE KEY uk_db_stock_product_stock (product_code, stock_code)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
    await q.query(`INSERT INTO db_stock (product_code, stock_code, \`count\`, version) VALUES ('1001', '001', 5000, 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE db_stock');
  }
}
