import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One row per held lock (migrations/1763800000100-create-lock-table.ts is the schema; this entity
 * only maps it). The unique key on lock_name is the mutual exclusion; expires_at is on the
 * database's clock (ms precision), so every instance judges "expired" alike.
 */
@Entity({ name: 'tb_lock' })
@Index('uk_tb_lock_name', ['lockName'], { unique: true })
export class LockRow {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'lock_name', type: 'varchar', length: 191 })
  lockName!: string;

  @Column({ name: 'owner', type: 'varchar', length: 191 })
  owner!: string;

  @Column({ name: 'reentrant_count', type: 'int', default: 1 })
  reentrantCount!: number;

  @Column({ name: 'expires_at', type: 'datetime', precision: 3 })
  expiresAt!: Date;

  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3, default: () => 'CURRENT_TIMESTAMP(3)' })
  createdAt!: Date;
}
