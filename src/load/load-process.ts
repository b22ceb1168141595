// The load generator's own process: it takes jobs from its parent over IPC and answers with their
// results, so autocannon has an event loop (and a core) to itself, apart from the bench or test.
import { runLoad, type LoadJob } from './load.js';

export type LoadRequest = { id: number; job: LoadJob };
export type LoadReply =
  | { id: number; kind: 'progress'; answered: number }
  | { id: number; kind: 'done'; result: Awaited<ReturnType<typeof runLoad>> }
  | { id: number; kind: 'failed'; message: string };

const send = (reply: LoadReply) => process.send?.(reply);

process.on('message', (msg: LoadRequest) => {
  runLoad(msg.job, (answered) => send({ id: msg.id, kind: 'progress', answered })).then(
    (result) => send({ id: msg.id, kind: 'done', result }),
    (err: unknown) => send({ id: msg.id, kind: 'failed', message: err instanceof Error ? err.message : String(err) }),
  );
});
// The parent going away ends the load generator with it.
process.on('disconnect', () => process.exit(0));
