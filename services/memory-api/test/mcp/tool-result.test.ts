import { DependencyUnavailableError, NotFoundError } from '@hindsight/errors';
import { createLogger } from '@hindsight/logger';
import { describe, expect, it } from 'vitest';
import { toolFailure } from '../../src/mcp/tool-result.ts';

const log = createLogger({ service: 'mcp-test', level: 'silent' });
const text = (result: ReturnType<typeof toolFailure>) => (result.content[0] as { text: string }).text;

describe('the MCP tool error wrapper', () => {
  it('hides the cause of an internal failure from the model', () => {
    const result = toolFailure('memory_write', new Error('SQLITE_CORRUPT: /srv/data/memory.db is malformed'), log);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'memory_write failed because of an internal error (logged on the server). Retry later, or continue without memory.',
    );
  });

  it('names no dependency when one is down', () => {
    const result = toolFailure(
      'memory_search',
      new DependencyUnavailableError('embedder', 'connect ECONNREFUSED 10.0.0.7:8002'),
      log,
    );
    expect(text(result)).not.toMatch(/embedder|ECONNREFUSED|10\.0\.0\.7/);
    expect(text(result)).toMatch(/temporarily unavailable\. Retry in a few seconds/);
  });

  it('passes a caller mistake through with what to do next', () => {
    const result = toolFailure('memory_forget', new NotFoundError('memory', 'm-1'), log);
    expect(text(result)).toBe(
      'memory_forget refused: memory m-1 not found. Search first to find the id of an existing memory.',
    );
  });
});
