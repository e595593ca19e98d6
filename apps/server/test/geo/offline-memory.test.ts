import { createRequire } from 'node:module';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it, vi } from 'vitest';

// Decision 159: the offline geocoder keeps its data as a compact index, not the `zipcodes` package's object per row
// (83 MB of heap held for the life of the process when the package stayed loaded).
function heapAfterFullGc(): number {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

describe('the offline geocoder memory', () => {
  it('keeps a few MB of heap after its first lookup, and not the package', async () => {
    // The server project reuses a worker process from file to file (isolate: false): another file may have built the
    // index in this process already, or required the package itself (zip-index.test compares with it), so this one
    // starts clean: the package out of require's cache, and a fresh copy of the module, with no index yet.
    const cache = createRequire(import.meta.url).cache;
    const packageFiles = () => Object.keys(cache).filter((f) => f.includes(`${'/'}zipcodes${'/'}`));
    for (const f of packageFiles()) delete cache[f];
    vi.resetModules();
    const { offlineDataLoaded, offlineGeocoder } = await import('../../src/modules/geo/offline.ts');
    expect(offlineDataLoaded()).toBe(false);
    const before = heapAfterFullGc();
    expect((await offlineGeocoder.lookupZip('90210', 'US'))?.city).toBe('Beverly Hills');
    expect((await offlineGeocoder.autocomplete('toronto', 3)).length).toBeGreaterThan(0);
    const kept = heapAfterFullGc() - before;
    // About 3 MB with the index; about 80 MB with the package's objects kept.
    expect(kept).toBeLessThan(20 * 2 ** 20);
    expect(packageFiles()).toEqual([]);
  });
});
