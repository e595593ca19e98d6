// How far V8 lets a JavaScript heap grow past what it kept after its last full collection (decision 156). On the
// embedded default (`npm start`) the process holds two heaps, the server's and the database thread's (decision 115),
// and both churn: every statement's rows are built in the thread, copied across and built again. V8 sizes a heap's
// next limit by its allocation rate, up to four times what survived: in the soak the two heaps held 413 MB of
// resident memory for 88 MB still referenced, more than half the process. A growth of 30% over the survivors keeps
// them near what they hold, for more frequent collections (measured in the soak and the trackings bench: decision 156).
import v8 from 'node:v8';

/** The heap's next limit: 1.3 times what survived the last full collection (V8's own choice: 1.1 to 4). */
export const HEAP_GROWING_PERCENT = 30;
/** The database thread's young generation: short-lived rows, collected often (Node's default for it: 48 MB and more). */
export const DATABASE_THREAD_YOUNG_GENERATION_MB = 8;

let applied = false;

/**
 * V8's heap growth for the whole process, from now on: V8 reads the flag at each full collection, in this thread and in
 * the threads started later. Called once, before the database thread starts; a server on PostgreSQL (one heap, a pool
 * of sockets) keeps V8's own sizing.
 */
export function limitHeapGrowth(): void {
  if (applied) return;
  applied = true;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
