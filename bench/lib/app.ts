// The start-up the in-process benches share: the server's settings for a bench, and an account signed up on it.
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../apps/server/src/config.ts';

/**
 * The server's configuration for a bench that runs the app in its own process: a fixed session secret, no logs, the
 * job queue polled every half second and links on a placeholder host; `env` adds to these or replaces them.
 */
export const benchConfig = (env: Record<string, string>) =>
  loadConfig({
    SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-01',
    LOG_LEVEL: 'silent',
    QUEUE_POLL_SECONDS: '0.5',
    PUBLIC_URL: 'http://bench.local',
    ...env,
  } as NodeJS.ProcessEnv);

/** Signs `email` up (password `password123`) on an app the bench built; its session (token and version). */
export async function signUpOn(app: FastifyInstance, email: string): Promise<{ sessionToken: string; version: string }> {
  const signup = await app.inject({
    method: 'POST',
    url: '/v1/user/general/signup',
    payload: { email, password: 'password123', repassword: 'password123', terms: true },
  });
  return signup.json().payload as { sessionToken: string; version: string };
}
