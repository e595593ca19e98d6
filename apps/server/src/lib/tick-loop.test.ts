import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { startTickLoop } from './tick-loop.ts';

const log = pino({ level: 'silent' });

describe('tick loop wake', () => {
  it('runs a round at once when idle; wakes during a round make exactly one more round; never two at once', async () => {
    let rounds = 0;
    let inRound = 0;
    let maxInRound = 0;
    let release: () => void = () => {};
    const loop = startTickLoop(log, 'test-loop', 600_000, async () => {
      rounds++;
      inRound++;
      maxInRound = Math.max(maxInRound, inRound);
      await new Promise<void>((r) => (release = r));
      inRound--;
    });
    try {
      loop.wake();
      expect(rounds).toBe(1);
      // Three wakes while the round runs: one more round after it, not three.
      loop.wake();
      loop.wake();
      loop.wake();
      expect(rounds).toBe(1);
      release();
      await new Promise((r) => setTimeout(r, 10));
      expect(rounds).toBe(2);
      release();
      await new Promise((r) => setTimeout(r, 10));
      expect(rounds).toBe(2);
      expect(maxInRound).toBe(1);
    } finally {
      const stopped = loop.stop();
      release();
      await stopped;
    }
    // Stopped: a wake does nothing.
    loop.wake();
    expect(rounds).toBe(2);
  });
});
