/*
 * A PgBouncer of the test's own in transaction mode (the pool mode of a multi-machine deployment, 5.2) in front of
 * the test PostgreSQL server: an ini and a userlist in a temporary folder, an ephemeral port on 127.0.0.1, the
 * Debian binary. A missing binary fails the suite with the way to install it (CI installs it), never a skip.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_DATABASE_URL } from './test-env';
import { waitUntil } from './wait';

export const PGBOUNCER_BINARY = process.env.PGBOUNCER_BINARY ?? '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** A URL through the pooler to this database of the test server. */
  url: (database: string) => string;
  stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startPgBouncer(options: { poolSize?: number } = {}): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER_BINARY)) {
    throw new Error(
      `PgBouncer is required by this suite and ${PGBOUNCER_BINARY} does not exist: ` +
        'install it with `apt-get install -y pgbouncer` (.ci/run does) or set PGBOUNCER_BINARY',
    );
  }
  const server = new URL(ADMIN_DATABASE_URL);
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'lp-pgbouncer-'));
  const port = await freePort();
  const ini = [
    '[databases]',
    // Any database name the client asks for, on the test server, as the same user.
    `* = host=${server.hostname} port=${server.port || '5432'} user=${user}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    `unix_socket_dir = ${dir}`,
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize ?? 10}`,
    'max_client_conn = 500',
    // node-postgres sends these as startup parameters (data-source-options.ts); PgBouncer refuses what it does not
    // know unless told to ignore it. The timeouts then come from the role or database settings (README).
    'ignore_startup_parameters = statement_timeout,idle_in_transaction_session_timeout,extra_float_digits,options',
    'server_reset_query =',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    'admin_users = ' + user,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'pgbouncer.ini'), ini);
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);

  // PgBouncer refuses to run as root (CI runs as root): it then switches to an ordinary user that owns the folder.
  const args = [join(dir, 'pgbouncer.ini')];
  if (process.getuid?.() === 0) {
    const runAs = process.env.PGBOUNCER_USER ?? 'postgres';
    const id = (flag: string) => Number(execFileSync('id', [flag, runAs], { encoding: 'utf8' }).trim());
    const [uid, gid] = [id('-u'), id('-g')];
    chownSync(dir, uid, gid);
    for (const file of readdirSync(dir)) chownSync(join(dir, file), uid, gid);
    args.unshift('-u', runAs);
  }
  const child: ChildProcess = spawn(PGBOUNCER_BINARY, args, { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  const log = (): string => {
    try {
      return readFileSync(join(dir, 'pgbouncer.log'), 'utf8').slice(-2000);
    } catch {
      return '';
    }
  };
  try {
    await waitUntil(
      async () => {
        if (exited) throw new Error(`PgBouncer exited at start:\n${log()}`);
        return accepts(port);
      },
      { what: 'PgBouncer to listen', timeoutMs: 10_000 },
    );
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  return {
    port,
    url: (database) => {
      const url = new URL(ADMIN_DATABASE_URL);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      url.pathname = `/${database}`;
      return url.toString();
    },
    stop: async () => {
      if (!exited) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
