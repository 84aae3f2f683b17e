import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLauncher } from './launcher/launcher.ts';
import { launchSettings } from './launcher/topology.ts';

/**
 * `npm start`: the whole suite without Docker — the four services as Node
 * processes on loopback, wired through the same variables docker-compose.yml sets.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

try {
  process.exitCode = await runLauncher(launchSettings(root, process.env));
} catch (error) {
  process.stderr.write(`[launcher] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
