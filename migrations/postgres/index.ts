// PostgreSQL's schema, the MySQL one's twin (store=postgres): the same stock row by what it is
// (product, warehouse), its version, one fence per token source, and the sale records. Each
// migration runs once, in a transaction of its own, recorded in pg_migrations.
export interface PostgresMigration {
  name: string;
  statements: readonly string[];
}

export const postgresMigrations: readonly PostgresMigration[] = [
  {
    name: '1763800000000-create-stock',
    statements: [
      `CREATE TABLE db_stock (
        id BIGSERIAL PRIMARY KEY,
        product_code VARCHAR(64) NOT NULL,
        stock_code VARCHAR(64) NOT NULL,
        count INT NOT NULL,
        version BIGINT NOT NULL DEFAULT 0,
        CONSTRAINT uk_db_stock_product_stock UNIQUE (product_code, stock_code)
      )`,
      `INSERT INTO db_stock (product_code, stock_code, count, version) VALUES ('1001', '001', 5000, 0)`,
    ],
  },
  {
    name: '1763800000200-fences-and-sales',
    statements: [
      // Tokens from different counters are not comparable: one fence each.
      `ALTER TABLE db_stock
        ADD COLUMN fence_redis BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN fence_zookeeper BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN fence_lock_table BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN fence_etcd BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN fence_postgres BIGINT NOT NULL DEFAULT 0`,
      // No unique key on purpose: it measures double deductions, it does not prevent them.
      `CREATE TABLE tb_sale (
        id BIGSERIAL PRIMARY KEY,
        request_id VARCHAR(64) NOT NULL,
        created_at TIMESTAMPTZ(3) NOT NULL DEFAULT now()
      )`,
      'CREATE INDEX idx_tb_sale_request ON tb_sale (request_id)',
    ],
  },
  {
    name: '1763800000500-fence-sequence',
    // The advisory locks' fencing tokens: nextval right after each grant. A sequence never hands a
    // value out twice, rolled-back transactions included, so every grant's token outranks the last.
    statements: ['CREATE SEQUENCE stock_fence_seq AS BIGINT START 1'],
  },
];
