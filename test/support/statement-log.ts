// A TypeORM logger that hands every statement a DataSource sends, as the driver gets it, to the
// test, and drops everything else: how a test counts or orders the statements a lock or store sends.
import type { Logger } from 'typeorm';

export function statementLogger(onQuery: (query: string) => void): Logger {
  return {
    logQuery: (query) => onQuery(query),
    logQueryError: () => undefined,
    logQuerySlow: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: () => undefined,
  };
}
