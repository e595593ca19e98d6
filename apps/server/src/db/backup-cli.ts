// npm run db:backup -- DATA_DIR FILE            back up a stopped server's embedded database
// npm run db:backup -- http://127.0.0.1:9464 FILE  ask a running server's admin port (ADMIN_PORT) for one
// npm run db:restore -- FILE DATA_DIR           write a backup into an empty DATA_DIR
import { writeFile } from 'node:fs/promises';
import { backupDataDir, restoreDataDir } from './backup.ts';

async function main(argv: string[]): Promise<void> {
  const [command, a, b] = argv;
  if (command === 'backup' && a && b) {
    if (/^https?:\/\//.test(a)) {
      const res = await fetch(new URL('/backup', a));
      if (!res.ok) throw new Error(`${a}/backup answered ${res.status}: ${await res.text()}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      await writeFile(b, bytes);
      console.log(`backup of the running server written to ${b} (${bytes.length} bytes)`);
    } else {
      console.log(`backup of ${a} written to ${b} (${await backupDataDir(a, b)} bytes)`);
    }
    return;
  }
  if (command === 'restore' && a && b) {
    await restoreDataDir(a, b);
    console.log(`${a} restored into ${b}: start the server with DATA_DIR=${b}`);
    return;
  }
  throw new Error('usage: backup-cli.ts backup DATA_DIR|ADMIN_URL FILE | restore FILE DATA_DIR');
}

main(process.argv.slice(2)).catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
