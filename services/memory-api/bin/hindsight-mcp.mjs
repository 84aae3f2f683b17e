#!/usr/bin/env node
// The stdio MCP server of hindsight. The sources are TypeScript run through tsx, as every service here.
import { register } from 'tsx/esm/api';

register();
await import('../src/mcp/stdio.ts');
