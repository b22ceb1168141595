// Runs the network tools (ip, iptables) and says which command failed and what it printed.
import { execFile } from 'node:child_process';

export interface CommandResult {
  stdout: string;
  stderr: string;
}

/** Runs `command args…` (stdin: `input`), resolving with its output; rejects naming the command and its stderr. */
export function runCommand(command: string, args: readonly string[], input?: string): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, [...args], { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')}: ${stderr.trim() || err.message}`));
      else resolve({ stdout, stderr });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Like runCommand, but a failure whose stderr matches `ignorable` (e.g. "does not exist" on a clean-up) is no failure. */
export async function runTolerant(command: string, args: readonly string[], ignorable: RegExp, input?: string): Promise<void> {
  try {
    await runCommand(command, args, input);
  } catch (err) {
    if (!ignorable.test((err as Error).message)) throw err;
  }
}
