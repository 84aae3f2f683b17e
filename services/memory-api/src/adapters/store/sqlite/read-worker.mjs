// A worker thread of the SQLite read pool (read-pool.ts). The sources are TypeScript run through tsx, as every service here.
import { register } from 'tsx/esm/api';

register();
await import('./read-worker.ts');
