// A small wrapper over IndexedDB (no dependency): what the courier's phone keeps while it has no signal
// (decision 120). Three object stores: `kv` (copies of the last answers, keyed by name), `outbox` (the courier's
// actions waiting to be sent, in the order they were made: an auto-incremented `seq`) and `trail` (the positions
// waiting to be sent, keyed by account and the time each was taken: decision 149). Every call resolves to
// undefined (or does nothing) where IndexedDB cannot be opened (private modes of some browsers): the app then
// works online only, as before.

const DB_NAME = 'shiptrail';
// Version 2 added `trail`: opening an older database adds the store and keeps the others.
const DB_VERSION = 2;
export type StoreName = 'kv' | 'outbox' | 'trail';

let opening: Promise<IDBDatabase | null> | undefined;
function open(): Promise<IDBDatabase | null> {
  opening ??= new Promise<IDBDatabase | null>((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(null);
    let req: IDBOpenDBRequest;
    try {
      req = indexedDB.open(DB_NAME, DB_VERSION);
    } catch {
      return resolve(null);
    }
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('kv')) db.createObjectStore('kv');
      if (!db.objectStoreNames.contains('outbox')) db.createObjectStore('outbox', { keyPath: 'seq', autoIncrement: true });
      if (!db.objectStoreNames.contains('trail')) db.createObjectStore('trail', { keyPath: ['account', 'takenAt'] });
    };
    req.onsuccess = () => {
      const db = req.result;
      // Another tab with a newer version of the app upgrades the database: let it, and open again next time.
      db.onversionchange = () => {
        db.close();
        opening = undefined;
      };
      resolve(db);
    };
    req.onerror = () => resolve(null);
    req.onblocked = () => resolve(null);
  });
  return opening;
}

/** Run `work` in one transaction of `store`; resolves with what its last request gave, when the transaction commits. */
async function run<T>(
  store: StoreName,
  mode: IDBTransactionMode,
  work: (s: IDBObjectStore) => IDBRequest<T> | void,
): Promise<T | undefined> {
  const db = await open();
  if (!db) return undefined;
  return new Promise<T | undefined>((resolve, reject) => {
    const tx = db.transaction(store, mode);
    const req = work(tx.objectStore(store));
    tx.oncomplete = () => resolve(req ? req.result : undefined);
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

export const idbGet = <T>(store: StoreName, key: IDBValidKey) => run<T>(store, 'readonly', (s) => s.get(key) as IDBRequest<T>);
export const idbAll = async <T>(store: StoreName) => (await run<T[]>(store, 'readonly', (s) => s.getAll() as IDBRequest<T[]>)) ?? [];
/** Put a value (under `key` for a store without a key path); resolves with its key. */
export const idbPut = (store: StoreName, value: unknown, key?: IDBValidKey) =>
  run<IDBValidKey>(store, 'readwrite', (s) => (key === undefined ? s.put(value) : s.put(value, key)));
export const idbDelete = (store: StoreName, key: IDBValidKey) => run(store, 'readwrite', (s) => void s.delete(key));
export const idbClear = (store: StoreName) => run(store, 'readwrite', (s) => void s.clear());

/** Change a stored value in one transaction, if it is still there (another tab may have removed it). */
export async function idbUpdate<T>(store: StoreName, key: IDBValidKey, change: (v: T) => T): Promise<void> {
  await run(store, 'readwrite', (s) => {
    const req = s.get(key) as IDBRequest<T | undefined>;
    req.onsuccess = () => {
      if (req.result !== undefined) s.put(change(req.result));
    };
  });
}

/**
 * A store's rows as every component of the tab sees them, sorted by `order`: read again when this tab changed the
 * store (`changed`) or another tab says it did (on the BroadcastChannel `channelName`). `subscribe` and `rows` are
 * what useSyncExternalStore takes; the first subscriber reads the store.
 */
export function idbLiveList<T>(store: StoreName, channelName: string, order: (a: T, b: T) => number) {
  let rows: T[] = [];
  const listeners = new Set<() => void>();
  const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(channelName);
  const reload = async () => {
    rows = (await idbAll<T>(store).catch(() => [])).sort(order);
    for (const l of listeners) l();
  };
  channel?.addEventListener('message', () => void reload());
  return {
    rows: () => rows,
    subscribe(l: () => void) {
      listeners.add(l);
      if (listeners.size === 1) void reload();
      return () => listeners.delete(l);
    },
    changed() {
      channel?.postMessage('changed');
      return reload();
    },
  };
}
