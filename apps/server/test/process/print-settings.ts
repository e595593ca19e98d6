// Run by process-memory.test.ts: applies the embedded default's process settings as main.ts does, then prints what
// this process runs with.
import { applyProcessSettings } from '../../src/process-memory.ts';

applyProcessSettings();
console.log(
  JSON.stringify({
    pid: process.pid,
    execArgv: process.execArgv,
    argv: process.argv.slice(2),
    env: { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ },
  }),
);
