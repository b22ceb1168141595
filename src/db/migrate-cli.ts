// `npm run migrate`: the migrations alone, for docker compose's one-shot migrate service.
import { loadServiceConfig } from '../config.js';
import { runMigrations } from './migrate.js';

const ran = await runMigrations(loadServiceConfig().mysql);
console.log(ran.length ? `applied: ${ran.join(', ')}` : 'schema up to date');
