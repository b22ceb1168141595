// `npm run migrate`: the migrations alone, for docker compose's one-shot migrate service: MySQL's
// schema, then PostgreSQL's twin of it (store=postgres).
import { loadServiceConfig } from '../config.js';
import { runMigrations } from './migrate.js';
import { runPostgresMigrations } from './postgres-migrate.js';

const config = loadServiceConfig();
const ran = await runMigrations(config.mysql);
console.log(ran.length ? `mysql: applied ${ran.join(', ')}` : 'mysql: schema up to date');
const ranPg = await runPostgresMigrations(config.postgres);
console.log(ranPg.length ? `postgres: applied ${ranPg.join(', ')}` : 'postgres: schema up to date');
