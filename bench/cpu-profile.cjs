// Preloaded into the processor by `npm run bench:stage -- … --cpu-prof DIR` (NODE_OPTIONS refuses
// --cpu-prof itself): profiles the process from start to exit and writes DIR/processor-<pid>.cpuprofile.
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.SPANLOG_BENCH_CPU_PROF_DIR;
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.start');
process.on('exit', () => {
  // A session on the main thread answers synchronously, so this completes before the process ends.
  session.post('Profiler.stop', (err, result) => {
    if (err) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `processor-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
});
