#!/usr/bin/env node
// The CLI is TypeScript run by tsx (the repository's runtime); register it, then hand over.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
