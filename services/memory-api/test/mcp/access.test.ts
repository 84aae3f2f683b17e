import { MemoryApiClient } from '@hindsight/memory-client';
import { clientMemoryAccess, serviceMemoryAccess } from '../../src/mcp/access.ts';
import { runMemoryAccessContract } from './access-contract.ts';

// Streamable HTTP and SSE inside memory-api: the domain in process, the tenant from the request's key.
runMemoryAccessContract('in-process service', (t) =>
  serviceMemoryAccess(t.deps.memory, 'acme', t.deps.hindsight.sessions),
);

// The stdio server: the same calls over memory-api's REST API, the tenant from its key.
runMemoryAccessContract('REST client', (_t, url) =>
  clientMemoryAccess(new MemoryApiClient({ baseUrl: url, apiKey: 'key-acme' })),
);
