// The production files (Dockerfile, deploy/compose.yaml, deploy/env.example) cannot be built or started on a
// machine without Docker, so this checks what can go stale without anyone noticing: every variable the
// example names is one the server reads, every file the image copies or runs exists, and each role is started.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (rel) => readFileSync(path.join(root, rel), 'utf8');

describe('deployment files', () => {
  it('every variable in deploy/env.example is documented in docs/configuration.md (compose-only ones aside)', () => {
    const documented = read('docs/configuration.md');
    const composeOnly = new Set(['POSTGRES_PASSWORD', 'SITE_ADDRESS']);
    const names = [...read('deploy/env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(10);
    const unknown = names.filter((n) => !composeOnly.has(n) && !documented.includes(`\`${n}\``));
    expect(unknown).toEqual([]);
  });

  it('the Dockerfile copies files that exist and runs the server entry point', () => {
    const docker = read('Dockerfile');
    const sources = [...docker.matchAll(/^COPY (?!--from)(\S+) /gm)].map((m) => m[1]).filter((s) => s !== '.');
    expect(sources.length).toBeGreaterThan(3);
    for (const s of sources) for (const f of s.split(' ')) expect(existsSync(path.join(root, f)), f).toBe(true);
    expect(docker).toContain('apps/server/src/main.ts');
    expect(existsSync(path.join(root, 'apps/server/src/main.ts'))).toBe(true);
    expect(docker).toMatch(/^USER node$/m);
  });

  it('compose starts two api and two worker processes on one PostgreSQL, behind the proxy', () => {
    const compose = read('deploy/compose.yaml');
    expect(compose.match(/"--role", "api"/g)).toHaveLength(2);
    expect(compose.match(/"--role", "worker"/g)).toHaveLength(2);
    expect(compose).toContain('DATABASE_URL: postgres://');
    const caddy = read('deploy/Caddyfile');
    expect(caddy).toMatch(/reverse_proxy api-1:3000 api-2:3000/);
  });
});
