export { type Access, routeAccess } from './access.ts';
export {
  bearerKey,
  enforceListenPolicy,
  type KeyEntry,
  type KeySetting,
  KeyTable,
  type ListenPolicy,
  ListenRefusedError,
  readKeyEntries,
} from './caller-keys.ts';
export { registerErrorHandler } from './errors.ts';
export { type HealthRoutesOptions, healthRoutes } from './health-routes.ts';
export { exitOnStartupFailure, type ShutdownBudget, type ShutdownOptions, stopOnSignals } from './lifecycle.ts';
export { type CheckOutcome, checkReadiness, type Readiness, type ReadinessCheck, withTimeout } from './readiness.ts';
export { requestLogController } from './request-logging.ts';
export { createServiceApp, type ServiceAppOptions } from './service-app.ts';
export { closeApp, refuseWhileClosing } from './shutdown.ts';
