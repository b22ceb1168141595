// Every migration, in order. Listed explicitly so the same set runs under tsx, in a build and in tests.
import { CreateStock1763800000000 } from './1763800000000-create-stock.js';
import { CreateLockTable1763800000100 } from './1763800000100-create-lock-table.js';
import { FencesAndSales1763800000200 } from './1763800000200-fences-and-sales.js';
import { CreateBasicLockTable1763800000300 } from './1763800000300-create-basic-lock-table.js';
import { FencesEtcdPostgres1763800000400 } from './1763800000400-fences-etcd-postgres.js';

export const migrations = [
  CreateStock1763800000000,
  CreateLockTable1763800000100,
  FencesAndSales1763800000200,
  CreateBasicLockTable1763800000300,
  FencesEtcdPostgres1763800000400,
];
