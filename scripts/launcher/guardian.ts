import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * `node guardian.ts <command> [args…]`: runs a program that is not a Node service (redis-server)
 * so that it cannot outlive the launcher. The launcher starts this with an IPC channel; when the
 * channel closes — the launcher exited, however it ended, SIGKILL included — the program is sent
 * SIGTERM (SIGKILL if it lingers). SIGTERM and SIGINT are passed on; the guardian exits with the
 * program's own code.
 */
const LINGER_MS = 5_000;
const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: guardian.ts <command> [args…]\n');
  process.exit(2);
}

const program = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
program.on('error', (error) => {
  process.stderr.write(`cannot start ${command}: ${error.message}\n`);
  process.exit(127);
});
program.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
});

const stopProgram = (signal: NodeJS.Signals) => {
  if (program.exitCode !== null || program.signalCode !== null) return;
  program.kill(signal);
  setTimeout(() => program.kill('SIGKILL'), LINGER_MS).unref();
};
process.on('SIGTERM', () => stopProgram('SIGTERM'));
process.on('SIGINT', () => stopProgram('SIGINT'));
process.on('disconnect', () => stopProgram('SIGTERM'));
