// One line for any thrown value, for the report's details and the progress log.
export function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? text;
}
