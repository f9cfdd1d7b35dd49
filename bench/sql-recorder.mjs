// A recording proxy between a service and PostgreSQL, for the database ceiling of bench/load.mjs --open: it
// passes every byte through unchanged and reads the frontend messages (simple Query; extended Parse and Bind, with
// named statements resolved) to record each statement with its parameters and the connection it ran on.
// `take()` returns the statements since the last take; `replay(pool, statements)` runs them again through a `pg`
// pool, each recorded connection's statements in order on one pooled client (the connections in parallel), the
// way the service ran them.
import { randomUUID } from 'node:crypto';
import net from 'node:net';

const SSL_REQUEST = 80877103;
const ID_INSERT = /INSERT INTO \w+\s*\(\s*id\s*,[^)]*\)\s*(?:VALUES\s*\(|SELECT\s+\*\s+FROM\s+unnest\()\s*\$(\d+)/i;
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const PROTOCOL_3 = 196608;

export async function startRecorder(databaseUrl) {
  const target = new URL(databaseUrl);
  let recorded = [];
  let connSeq = 0;
  const sockets = new Set();
  const server = net.createServer((client) => {
    const conn = ++connSeq;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    upstream.on('data', (d) => client.write(d));
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    upstream.on('error', close);
    client.on('error', close);
    upstream.on('close', close);
    client.on('close', close);
    let started = false;
    let buf = Buffer.alloc(0);
    const named = new Map();
    let unnamed = '';
    client.on('data', (d) => {
      upstream.write(d);
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      for (;;) {
        if (!started) {
          if (buf.length < 8) return;
          const len = buf.readInt32BE(0);
          if (buf.length < len) return;
          const code = buf.readInt32BE(4);
          if (code === PROTOCOL_3) started = true;
          else if (code !== SSL_REQUEST) started = true; // cancel requests and others: nothing to record after
          buf = buf.subarray(len);
          continue;
        }
        if (buf.length < 5) return;
        const type = String.fromCharCode(buf[0]);
        const len = buf.readInt32BE(1);
        if (buf.length < 1 + len) return;
        const body = buf.subarray(5, 1 + len);
        buf = buf.subarray(1 + len);
        let at = 0;
        const cstring = () => {
          const end = body.indexOf(0, at);
          const s = body.toString('utf8', at, end);
          at = end + 1;
          return s;
        };
        if (type === 'Q') {
          recorded.push({ conn, sql: cstring(), params: null });
        } else if (type === 'P') {
          const name = cstring();
          const sql = cstring();
          if (name) named.set(name, sql);
          else unnamed = sql;
        } else if (type === 'B') {
          cstring(); // portal
          const name = cstring();
          const nFormats = body.readInt16BE(at);
          at += 2;
          const formats = [];
          for (let i = 0; i < nFormats; i++, at += 2) formats.push(body.readInt16BE(at));
          const nParams = body.readInt16BE(at);
          at += 2;
          const params = [];
          for (let i = 0; i < nParams; i++) {
            const n = body.readInt32BE(at);
            at += 4;
            if (n < 0) {
              params.push(null);
              continue;
            }
            const raw = body.subarray(at, at + n);
            at += n;
            const format = nFormats === 0 ? 0 : nFormats === 1 ? formats[0] : formats[i];
            params.push(format === 1 ? Buffer.from(raw) : raw.toString('utf8'));
          }
          recorded.push({ conn, sql: name ? named.get(name) : unnamed, params });
        }
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(server.address().port);
  return {
    url: url.toString(),
    take: () => {
      const out = recorded;
      recorded = [];
      return out;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Replays one request's statements; resolves the number of statements that failed (a replayed insert may), their
 * messages counted in `errors` (a Map) when given.
 */
export async function replay(pool, statements, errors) {
  // Ids the service made for new rows (`INSERT INTO t (id, ...) VALUES ($n` or `SELECT * FROM unnest($n`) are new in
  // every replay, everywhere the request used them: a replayed insert then inserts, as the service's would.
  const fresh = new Map();
  for (const s of statements) {
    const m = s.params && ID_INSERT.exec(s.sql);
    const v = m ? s.params[Number(m[1]) - 1] : null;
    if (typeof v === 'string') for (const id of v.match(UUIDS) ?? []) fresh.set(id.toLowerCase(), randomUUID());
  }
  if (fresh.size > 0) {
    statements = statements.map((s) => ({
      ...s,
      params:
        s.params &&
        s.params.map((v) => (typeof v === 'string' ? v.replace(UUIDS, (id) => fresh.get(id.toLowerCase()) ?? id) : v)),
    }));
  }
  const byConn = new Map();
  for (const s of statements) {
    if (!byConn.has(s.conn)) byConn.set(s.conn, []);
    byConn.get(s.conn).push(s);
  }
  let failed = 0;
  await Promise.all(
    [...byConn.values()].map(async (list) => {
      const client = await pool.connect();
      let open = false;
      try {
        for (const s of list) {
          if (/^\s*(BEGIN|START TRANSACTION)/i.test(s.sql)) open = true;
          else if (/^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i.test(s.sql)) open = false;
          try {
            await (s.params === null ? client.query(s.sql) : client.query({ text: s.sql, values: s.params }));
          } catch (err) {
            failed++;
            if (errors) {
              const key = `${String(err?.message).slice(0, 120)} [${s.sql.replace(/\s+/g, ' ').slice(0, 80)}]`;
              errors.set(key, (errors.get(key) ?? 0) + 1);
            }
          }
        }
        // A transaction the recording cut (it ended in the next request's statements) ends here.
        if (open) await client.query('ROLLBACK').catch(() => {});
      } finally {
        client.release();
      }
    }),
  );
  return failed;
}
