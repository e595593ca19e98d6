// sendSoon's notifications (decision 190): the messages of a moment in order, each with its own id, in as few
// notifications as NOTIFY's limit allows.
import { describe, expect, it } from 'vitest';
import { gathered, type BusMessage } from './bus.ts';

const parse = (texts: string[]) => texts.map((t) => JSON.parse(t) as BusMessage[]);

describe('gathered', () => {
  it('puts the messages of a moment in one notification, in order, each with its own id', () => {
    const texts = gathered([
      { topic: 'live', data: { kind: 'balance', accountId: 'a' } },
      { topic: 'live', data: { kind: 'balance', accountId: 'a' } },
      { topic: 'jobs', data: { queue: 'q' } },
    ]);
    expect(texts).toHaveLength(1);
    const [messages] = parse(texts);
    expect(messages!.map((m) => [m.topic, m.data])).toEqual([
      ['live', { kind: 'balance', accountId: 'a' }],
      ['live', { kind: 'balance', accountId: 'a' }],
      ['jobs', { queue: 'q' }],
    ]);
    expect(new Set(messages!.map((m) => m.id)).size).toBe(3);
  });

  it("splits what would pass NOTIFY's limit into several notifications, none over it, none lost", () => {
    const many = Array.from({ length: 120 }, (_, i) => ({
      topic: 'live' as const,
      data: { kind: 'tracking', n: i, pad: 'x'.repeat(100) },
    }));
    const texts = gathered(many);
    expect(texts.length).toBeGreaterThan(1);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(7900);
    expect(
      parse(texts)
        .flat()
        .map((m) => m.data.n),
    ).toEqual(many.map((m) => m.data.n));
  });

  it('refuses a message that alone passes the limit, and sends nothing for none', () => {
    expect(() => gathered([{ topic: 'live', data: { pad: 'x'.repeat(8000) } }])).toThrow(/too large/);
    expect(gathered([])).toEqual([]);
  });
});
