// The embedded default's process settings that only take effect when the process starts (decision 159). Imported by
// main.ts right after the Node version check, before anything else is loaded: on the embedded database (no
// DATABASE_URL) a process started without them replaces itself (process.execve: same process id, same standard input,
// output and error) by `node` with them, so `npm start`, the Docker image and `node src/main.ts` by hand all run the
// same way. A server on PostgreSQL keeps Node's defaults.

/**
 * Node flags, read only when the main thread's heap is made:
 * - the young generation's semi-spaces at most 4 MB (Node's default: 16 MB, so 48 MB of young generation that a
 *   busy server keeps committed): the main thread's garbage (requests, rows from the database thread) dies young.
 */
export const EMBEDDED_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

/**
 * Environment read by the C library (glibc's malloc) when the process starts. Without it, in the soak, the threads'
 * malloc arenas held about 200 MB that had been freed: each thread that allocates (the database thread, V8's
 * compiler and collector threads, libuv's pool) gets an arena of its own (up to 8 per core), and after the first large
 * block is freed glibc raises its threshold for mapping large blocks apart (up to 32 MB), so the large buffers of
 * the database thread's messages and of the responses are carved out of the arenas, and what is freed in the middle
 * of an arena stays resident.
 * - MALLOC_ARENA_MAX=2: two arenas for all the threads;
 * - MALLOC_MMAP_THRESHOLD_=131072: blocks of 128 KB and more are mapped apart, and given back when freed (a fixed
 *   threshold: glibc no longer raises it);
 * - MALLOC_TRIM_THRESHOLD_=131072: an arena gives back its free top beyond 128 KB (glibc's default once the threshold
 *   moves: twice the mapping threshold, up to 64 MB).
 */
export const EMBEDDED_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/** Set in the replaced process, so it never replaces itself twice. */
const MARK = 'SHIPTRAIL_PROCESS_SETTINGS';

/** What is missing from this process, or null when nothing is or it cannot be changed. */
export function missingSettings(
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
): { flags: string[]; env: Record<string, string> } | null {
  if (env.DATABASE_URL || env[MARK]) return null;
  const flagName = (f: string) => f.split('=')[0]!.replace(/_/g, '-');
  const given = new Set(execArgv.map(flagName));
  const nodeOptions = new Set((env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean).map(flagName));
  const flags = EMBEDDED_NODE_FLAGS.filter((f) => !given.has(flagName(f)) && !nodeOptions.has(flagName(f)));
  const missingEnv = Object.fromEntries(Object.entries(EMBEDDED_ENV).filter(([k]) => env[k] === undefined));
  return flags.length || Object.keys(missingEnv).length ? { flags, env: missingEnv } : null;
}

/**
 * Replaces this process by `node` with the settings, when they are missing and it can: not on Windows (no execve), and
 * not in a process with an IPC channel to its parent (a fork: execve would close it; such a parent passes the settings
 * itself, as the soak does).
 */
export function applyProcessSettings(): void {
  const missing = missingSettings();
  if (!missing || typeof process.execve !== 'function' || process.channel) return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...missing.flags, ...process.argv.slice(1)], {
    ...process.env,
    ...missing.env,
    [MARK]: '1',
  });
}
