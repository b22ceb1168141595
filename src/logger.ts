import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, instanceId?: string): Logger {
  return pino({ level, base: instanceId ? { instance: instanceId } : {} });
}
