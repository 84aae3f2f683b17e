export { freePort } from './free-port.ts';
export { type ServiceProcess, type SpawnServiceOptions, spawnService, waitForReady } from './service-process.ts';
