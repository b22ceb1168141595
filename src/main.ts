// Process entry: configuration → connections → listen; graceful shutdown on SIGTERM/SIGINT.
import { loadServiceConfig } from './config.js';
import { openService } from './service.js';

const service = await openService(loadServiceConfig());

let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('shutdown failed', err);
        process.exit(1);
      },
    );
  });
}
