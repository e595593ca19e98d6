// Logs are readable lines at a terminal and JSON everywhere else (files, pipes, collectors), as `npm start` users
// and log pipelines each need.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logFormat } from './logger.ts';
import { loadConfig } from '../config.ts';

function capture(env: Record<string, string>, isTTY: boolean): string {
  const destination = new PassThrough();
  let text = '';
  destination.on('data', (c: Buffer) => (text += c.toString()));
  const log = createLogger(loadConfig({ DATA_DIR: 'memory://', ...env } as NodeJS.ProcessEnv), { isTTY, destination });
  log.info({ port: 3000 }, 'Shiptrail is running');
  return text;
}

describe('log format', () => {
  it('pretty at a terminal, JSON when piped, LOG_FORMAT wins', () => {
    expect(logFormat({}, true)).toBe('pretty');
    expect(logFormat({}, false)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(() => loadConfig({ DATA_DIR: 'memory://', LOG_FORMAT: 'xml' } as NodeJS.ProcessEnv)).toThrow(/LOG_FORMAT/);
  });

  it('a terminal gets a readable line, not a JSON object', () => {
    const line = capture({}, true);
    expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\] .*INFO.*Shiptrail is running/);
    expect(line).toContain('port');
    expect(() => JSON.parse(line)).toThrow();
  });

  it('a pipe (or LOG_FORMAT=json at a terminal) gets one JSON object a line', () => {
    for (const [env, tty] of [
      [{}, false],
      [{ LOG_FORMAT: 'json' }, true],
    ] as const) {
      const line = capture(env, tty);
      expect(JSON.parse(line)).toMatchObject({ level: 30, msg: 'Shiptrail is running', port: 3000 });
    }
  });
});
