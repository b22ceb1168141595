import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One committed deduction of a request that sent X-Request-Id (migrations/1763800000200 is the
 * schema). Written in the deduction's own transaction, so a row exists exactly when the unit left.
 */
@Entity({ name: 'tb_sale' })
@Index('idx_tb_sale_request', ['requestId'])
export class SaleRow {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'request_id', type: 'varchar', length: 64 })
  requestId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3, default: () => 'CURRENT_TIMESTAMP(3)' })
  createdAt!: Date;
}
