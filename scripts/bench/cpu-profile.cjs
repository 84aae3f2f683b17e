// Preloaded with `node --require` (NODE_OPTIONS refuses --cpu-prof): profiles the process's main
// thread from start to exit and writes a .cpuprofile into CPU_PROFILE_DIR (open it in Chrome
// DevTools or speedscope). Used by scripts/bench/writes.ts --profile.
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.on('exit', () => {
    // Posted in the same thread, so the answer arrives before exit goes on.
    session.post('Profiler.stop', (error, result) => {
      if (error) process.stderr.write(`cpu profile not written: ${error.message}\n`);
      else writeFileSync(join(dir, `memory-api-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
