// Detection throughput: tracking numbers classified per second (detectCarriers over a mixed set of real-shaped
// numbers from docs/carrier-numbers.md, spaced and plain). Run: `node bench/detect.bench.ts` (Node 24 type
// stripping) — prints JSON — or import `benchDetect()`.
import { detectCarriers } from '../apps/server/src/modules/carriers/detect.ts';

const NUMBERS = [
  '1Z5R89390357567127',
  '1Z 879E 9303 4683 4440',
  'K1506235620',
  '9400111206206406260787',
  '9400 1112 0108 0805 4830 16',
  '420221539101026837331000039521',
  '4201028200009261290113185417468510',
  '03071790000523483741',
  'EJ958083578US',
  '986578788855',
  '041441760228964',
  '9611020987654312345672',
  '1001921334250001000300779017972697',
  '61292701078443410536',
  '0073938000549297',
  '1371134583769923',
  'RB123456785CA',
  'NOT-A-NUMBER',
  '123',
  '1Z1111111111111111',
];

export async function benchDetect(): Promise<{ name: string; opsPerSec: number }> {
  // Warm up the regexes and the JIT.
  for (let i = 0; i < 20_000; i++) detectCarriers(NUMBERS[i % NUMBERS.length]!);
  let ops = 0;
  let sink = 0;
  const start = performance.now();
  const budgetMs = 1500;
  while (performance.now() - start < budgetMs) {
    for (let i = 0; i < 1000; i++) sink += detectCarriers(NUMBERS[(ops + i) % NUMBERS.length]!).length;
    ops += 1000;
  }
  const elapsed = (performance.now() - start) / 1000;
  if (sink < 0) console.log(sink);
  return { name: 'carrier detection (numbers classified/s)', opsPerSec: Math.round(ops / elapsed) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchDetect()));
}
