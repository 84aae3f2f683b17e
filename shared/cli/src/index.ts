export { runCli, USAGE } from './main.ts';
export { EXIT, DEFAULT_URL } from './context.ts';
export { createProgress, type Progress, type ProgressOptions } from './progress.ts';
