import { type ParseArgsConfig, parseArgs } from 'node:util';
import {
  FORGET_OPTIONS,
  forgetCommand,
  LIST_OPTIONS,
  listCommand,
  SEARCH_OPTIONS,
  STORE_OPTIONS,
  searchCommand,
  storeCommand,
} from './commands/memories.ts';
import { REINDEX_OPTIONS, reindexCommand } from './commands/reindex.ts';
import { STATS_OPTIONS, statsCommand } from './commands/stats.ts';
import { EXPORT_OPTIONS, exportCommand, importCommand } from './commands/transfer.ts';
import { CommandContext, EXIT, GLOBAL_OPTIONS, type GlobalValues, type Io, reportFailure } from './context.ts';

export const USAGE = `hindsight — command line for the hindsight memory service

usage: hindsight <command> [options]

commands:
  store <text>        write a memory       [--user U] [--type episodic|semantic|preference|…] [--category C]
                                           [--tag T]… [--metadata JSON] [--occurred-at ISO] [--session S]
  search <query>      hybrid search        [--user U] [--top-k N] [--type T]… [--tag T]… [--time-range 7d] [--budget N]
  list                list memories        [--user U] [--type T] [--status S] [--tag T] [--limit N | --all]
  forget              forget by filter     --id ID | --user U | --session S | --tag T… | --type T… | --before ISO [--dry-run]
  export              NDJSON of every long-term memory to stdout or --out FILE   [--user U] [--type T] [--status S]
  import <file|->     NDJSON into the store; ids already present are skipped, so re-running resumes
  stats               per-layer counts, last write, retrieval hit rate, queue depth (admin key)
  reindex             re-embed every memory in place with the configured embedder, then switch the store to it;
                      resumable, idempotent. Stop memory-api first; reads memory-api's environment (VECTOR_STORE,
                      DATA_DIR / DATABASE_URL / QDRANT_URL, EMBEDDER_URL or EMBEDDINGS_*)   [--batch-size N]

options for every command:
  --url URL           memory-api (env HINDSIGHT_URL, default http://127.0.0.1:8001)
  --api-key KEY       API key (env HINDSIGHT_API_KEY)
  --json              machine-readable output on stdout
  -q, --quiet         no progress or notes on stderr

exit status: 0 ok, 1 usage error, 2 memory-api answered an error, 3 memory-api unreachable, 4 not found`;

interface Command {
  options: NonNullable<ParseArgsConfig['options']>;
  positionals: boolean;
  run(ctx: CommandContext, positionals: string[], values: Record<string, unknown>): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  store: { options: STORE_OPTIONS, positionals: true, run: (ctx, p, v) => storeCommand(ctx, p, v) },
  search: { options: SEARCH_OPTIONS, positionals: true, run: (ctx, p, v) => searchCommand(ctx, p, v) },
  list: { options: LIST_OPTIONS, positionals: false, run: (ctx, _p, v) => listCommand(ctx, v) },
  forget: { options: FORGET_OPTIONS, positionals: false, run: (ctx, _p, v) => forgetCommand(ctx, v) },
  export: { options: EXPORT_OPTIONS, positionals: false, run: (ctx, _p, v) => exportCommand(ctx, v) },
  import: { options: {}, positionals: true, run: (ctx, p) => importCommand(ctx, p) },
  stats: { options: STATS_OPTIONS, positionals: false, run: (ctx, _p, v) => statsCommand(ctx, v) },
  reindex: { options: REINDEX_OPTIONS, positionals: false, run: (ctx, _p, v) => reindexCommand(ctx, v) },
};

const defaultIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});

/** Runs one CLI invocation and returns its exit status; never calls process.exit. */
export async function runCli(argv: readonly string[], io: Io = defaultIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(`${USAGE}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`unknown command "${name}"\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...rest],
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: command.positionals,
      strict: true,
    }) as { values: Record<string, unknown>; positionals: string[] };
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\nrun "hindsight --help" for usage\n`);
    return EXIT.usage;
  }
  if (parsed.values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const ctx = new CommandContext(io, parsed.values as GlobalValues);
  try {
    return await command.run(ctx, parsed.positionals, parsed.values);
  } catch (error) {
    return reportFailure(io, ctx.url, error);
  }
}
