import './node-version.ts';
import { enableCompileCache, flushCompileCache } from 'node:module';
import { parseArgs } from 'node:util';
import { applyProcessSettings } from './process-memory.ts';

// The embedded default's start-up settings (decision 159): without them this process is replaced by one with them.
applyProcessSettings();

// Node's compile cache (decision 154): the type-stripped source and V8's code of every module, kept on disk
// (NODE_COMPILE_CACHE, or the system's temporary directory) so a restart does not strip and compile the same
// files again. The application is imported after it is on (a static import is compiled before this line runs);
// the database thread inherits it through NODE_COMPILE_CACHE.
const cache = enableCompileCache?.();
if (cache?.directory) process.env.NODE_COMPILE_CACHE ??= cache.directory;
const { loadConfig, ConfigError, deploymentRefusals } = await import('./config.ts');
const { createLogger } = await import('./lib/logger.ts');

/** The configuration, or the process ends here with the sentence that says what to set. */
function configOrExit() {
  const { values } = parseArgs({ options: { role: { type: 'string' } }, allowPositionals: true, strict: false });
  try {
    const config = loadConfig({ ...process.env, ...(values.role ? { ROLE: String(values.role) } : {}) });
    const refusals = deploymentRefusals(config);
    if (refusals.length) {
      throw new ConfigError(
        `Not starting: PUBLIC_URL ${config.publicUrl} is not on this machine, so this is a deployment, and\n${refusals.map((r) => `  ${r}`).join('\n')}`,
      );
    }
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
const config = configOrExit();
const log = createLogger(config);

// The database opens while the application's modules load (decision 176): the embedded database's thread compiles
// PGlite and opens the data directory on the other core, instead of after every module is in. Its failure is
// reported where createContext awaits it.
const { openConfiguredDatabase } = await import('./db/open.ts');
const opening = openConfiguredDatabase(config, log);
opening.catch(() => {});

const { buildApp } = await import('./app.ts');
const { createContext, closeContext } = await import('./bootstrap.ts');
const { startWorkers } = await import('./jobs/registry.ts');
const { startAdminServer } = await import('./lib/admin-server.ts');
const { dumpEmbedded } = await import('./db/backup.ts');
const { sql } = await import('drizzle-orm');

/**
 * Entry point. Roles: `all` (default: API + worker in one process), `api`, or `worker`
 * (`npm start -- --role worker`, or ROLE=worker). Several api and worker processes can share one
 * PostgreSQL server (DATABASE_URL); PGlite is embedded and single-process.
 */
async function main() {
  if (config.ROLE !== 'all' && !config.DATABASE_URL) {
    log.warn('ROLE=%s on the embedded database: PGlite is single-process, so run one process with both roles', config.ROLE);
  }
  const ctx = await createContext(config, log, { database: opening });
  const app = config.ROLE === 'worker' ? null : await buildApp(ctx);
  if (config.ROLE !== 'api') await startWorkers(ctx);
  const admin =
    config.ADMIN_PORT !== undefined
      ? await startAdminServer({
          port: config.ADMIN_PORT,
          host: config.ADMIN_HOST,
          ready: async () => {
            // The embedded database's thread (decision 115): not ready while it is being restarted.
            const thread = ctx.database.thread?.status;
            const more = thread ? { databaseThread: { state: thread.state, restarts: thread.restarts } } : undefined;
            if (thread && thread.state !== 'ready') throw Object.assign(new Error('the database thread is not ready'), { detail: more });
            await ctx.db.execute(sql`select 1`);
            return more;
          },
          backup: ctx.database.pglite ? () => dumpEmbedded(ctx.database.pglite!) : undefined,
        })
      : null;
  if (admin) log.info(`admin endpoints (/healthz, /readyz, /metrics${ctx.database.pglite ? ', /backup' : ''}) at ${admin.url}`);
  if (app) {
    await app.listen({ port: config.PORT, host: config.HOST });
    log.info(
      `Shiptrail is running at ${config.publicUrl} (database: ${ctx.database.kind}, mail: ${ctx.mailer.mode === 'smtp' ? 'SMTP' : 'dev outbox at /dev/mail'})`,
    );
  } else {
    log.info('Shiptrail worker started');
  }
  // Node writes its compile cache at a clean exit; a process that is killed (kill -9, the OOM killer, a power cut)
  // never exits cleanly, so it is written now that everything start-up loads has been compiled.
  flushCompileCache?.();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await app?.close();
    await admin?.close();
    await closeContext(ctx);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
