import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CommandContext, EXIT } from '../context.ts';

/** The eval runner lives in the repository's scripts/ (it starts memory-api from the checkout). */
const EVAL_MAIN = fileURLToPath(new URL('../../../../scripts/eval/main.ts', import.meta.url));

/**
 * `hindsight eval …` runs `npm run eval -- …` with the same arguments and exit status. The URL and
 * key are forwarded only when given to this command, so by default the eval starts a fresh service.
 */
export async function evalCommand(ctx: CommandContext, args: string[]): Promise<number> {
  if (!existsSync(EVAL_MAIN)) {
    ctx.io.stderr.write(`the eval runner ships with the hindsight repository (expected ${EVAL_MAIN})\n`);
    return EXIT.usage;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', EVAL_MAIN, ...args], {
    cwd: fileURLToPath(new URL('../../../../', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...ctx.io.env },
  });
  child.stdout?.pipe(ctx.io.stdout, { end: false });
  child.stderr?.pipe(ctx.io.stderr, { end: false });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.once('SIGINT', forward);
  process.once('SIGTERM', forward);
  try {
    return await new Promise<number>((resolve) =>
      child.once('close', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 143))),
    );
  } finally {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
  }
}
