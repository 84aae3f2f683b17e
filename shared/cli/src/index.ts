export { DEFAULT_URL, EXIT } from './context.ts';
export { runCli, USAGE } from './main.ts';
export { createProgress, type Progress, type ProgressOptions } from './progress.ts';
