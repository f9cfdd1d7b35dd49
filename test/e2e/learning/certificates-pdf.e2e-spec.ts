import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateSync } from 'node:zlib';
import { PDFParse } from 'pdf-parse';
import QRCode from 'qrcode';
import { LOGO_FETCH_TIMEOUT_MS } from '@/modules/learning/certificates/testing';
import type TestAgent from 'supertest/lib/agent';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

async function pdfOf(
  agent: TestAgent,
  id: string,
): Promise<{ status: number; headers: Record<string, string>; bytes: Buffer }> {
  const res = await agent
    .get(`/api/v1/me/certificates/${id}/pdf`)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  return { status: res.status, headers: res.headers, bytes: res.body as Buffer };
}

async function textOf(pdf: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    return (await parser.getText()).text.replace(/\s+/g, ' ');
  } finally {
    await parser.destroy();
  }
}

/** The decompressed page content streams (where colors and text operators live). */
function contentOf(pdf: Buffer): string {
  const raw = pdf.toString('latin1');
  let out = '';
  for (const m of raw.matchAll(/\/Filter \/FlateDecode[^>]*>>\s*stream\r?\n/g)) {
    const start = m.index + m[0].length;
    const end = raw.indexOf('endstream', start);
    try {
      out += inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      // An image stream: not content.
    }
  }
  return out;
}

/** Images drawn on the page (the logo, when there is one). */
const imageCount = (pdf: Buffer): number => (contentOf(pdf).match(/\/I\d+ Do/g) ?? []).length;

/**
 * The QR code drawn on the page, read back from its squares (one `re` per dark module, all of one size) as the
 * set of "row,col" of dark modules.
 */
function qrModulesOf(pdf: Buffer): Set<string> {
  const rects = [...contentOf(pdf).matchAll(/(-?[\d.]+) (-?[\d.]+) ([\d.]+) ([\d.]+) re/g)].map((m) =>
    m.slice(1).map(Number),
  );
  const sizes = new Map<number, number>();
  for (const [, , w, h] of rects) if (Math.abs(w - h) < 1e-6) sizes.set(w, (sizes.get(w) ?? 0) + 1);
  const module = [...sizes].sort((a, b) => b[1] - a[1])[0][0];
  const squares = rects.filter(([, , w, h]) => w === module && h === module);
  const x0 = Math.min(...squares.map(([x]) => x));
  const y0 = Math.min(...squares.map(([, y]) => y));
  return new Set(squares.map(([x, y]) => `${Math.round((y - y0) / module)},${Math.round((x - x0) / module)}`));
}

function expectedModules(text: string): Set<string> {
  const { size, data } = QRCode.create(text, { errorCorrectionLevel: 'M' }).modules;
  const out = new Set<string>();
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) if (data[r * size + c]) out.add(`${r},${c}`);
  return out;
}

describe('certificate PDF', () => {
  let t: TestApp;
  let server: Server;
  let logoBase: string;
  const hits: string[] = [];
  let png: Buffer;
  let org: string;
  let owner: SignedIn;
  let holder: SignedIn;
  let stranger: SignedIn;

  async function cert(v: {
    o?: string;
    user?: SignedIn;
    holder?: string;
    code?: string;
    status?: string;
    title?: string;
  }) {
    const [c] = await t.db.query(
      `INSERT INTO courses (slug, title, language, level) VALUES ($1, 'Curso', 'es', 'beginner') RETURNING id`,
      [`c-${randomBytes(5).toString('hex')}`],
    );
    const [row] = await t.db.query(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title, status, issued_at,
         revoked_at, revoke_reason)
       VALUES ($1, 'course', $2, $3, $4, $5, $6, $7, '2026-03-15T12:00:00Z', $8, $9) RETURNING id, code`,
      [
        v.code ??
          `CRS-${randomBytes(4).toString('hex').toUpperCase().slice(0, 4)}-${randomBytes(2).toString('hex').toUpperCase()}`,
        v.o ?? org,
        (v.user ?? holder).user.id,
        v.holder ?? 'María José Núñez',
        c.id,
        v.title ?? 'Estadística aplicada a la investigación',
        v.status ?? 'active',
        v.status === 'revoked' ? '2026-04-01T00:00:00Z' : null,
        v.status === 'revoked' ? 'Fraude' : null,
      ],
    );
    return row as { id: string; code: string };
  }

  beforeAll(async () => {
    png = await QRCode.toBuffer('logo', { type: 'png', width: 120 });
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/logo.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      } else if (req.url === '/redirect.png') {
        res.writeHead(302, { location: '/logo.png' }).end();
      } else if (req.url === '/fake.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>');
      } else if (req.url === '/huge.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.concat([png, Buffer.alloc(1024 * 1024)]));
      } else if (req.url === '/slow.png') {
        // Never answers: only the fetch's timeout (shortened below) ends the wait.
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    logoBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    t = await createTestApp({ overrides: [{ provide: LOGO_FETCH_TIMEOUT_MS, useValue: 200 }] });
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Universidad de Ejemplo');
    await owner.agent
      .patch(`/api/v1/organizations/${org}`)
      .send({
        issuer_name: 'Universidad de Ejemplo — Registro',
        signature_name: 'Dra. María López',
        signature_title: 'Rectora',
        footer_text: 'Registro oficial de títulos 2026',
        accent_color: '#AA3300',
        cert_logo_url: `${logoBase}/logo.png`,
      })
      .expect(200);
    holder = await adult(t);
    stranger = await adult(t);
    await addMember(t, org, holder.user.id, 'student');
    await addMember(t, org, stranger.user.id, 'student');
  });
  afterAll(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("renders the holder's certificate with the issuing organization's template, code and QR code", async () => {
    const c = await cert({ code: 'CRS-7K2M-Q9XH' });
    const before = hits.length;
    const res = await pdfOf(holder.agent, c.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('inline; filename="certificate-CRS-7K2M-Q9XH.pdf"');
    expect(res.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await textOf(res.bytes);
    for (const expected of [
      'CERTIFICADO DE FINALIZACIÓN',
      'María José Núñez',
      'Estadística aplicada a la investigación',
      'Emitido por Universidad de Ejemplo — Registro el 15 de marzo de 2026',
      'CRS-7K2M-Q9XH',
      'Dra. María López',
      'Rectora',
      'Registro oficial de títulos 2026',
      'http://web.test/certificates/verify/CRS-7K2M-Q9XH',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('REVOCADO');
    // The accent color (#AA3300) draws the border and headings.
    expect(contentOf(res.bytes)).toMatch(/0\.66\d* 0\.2 0 SCN/);
    // The QR code encodes the public verification address, module for module.
    expect(qrModulesOf(res.bytes)).toEqual(expectedModules('http://web.test/certificates/verify/CRS-7K2M-Q9XH'));
    // The logo, fetched by the server from its URL.
    expect(imageCount(res.bytes)).toBe(1);
    expect(hits.slice(before)).toEqual(['/logo.png']);
  });

  it('renders without a logo, or in English, as the organization says', async () => {
    const plainOwner = await adult(t);
    const plain = await createOrganization(t, plainOwner, 'Plain Academy');
    await plainOwner.agent.patch(`/api/v1/organizations/${plain}`).send({ locale: 'en' }).expect(200);
    await addMember(t, plain, holder.user.id, 'student');
    const c = await cert({ o: plain, title: 'Data Analysis' });
    const res = await pdfOf(holder.agent, c.id);
    expect(res.status).toBe(200);
    const text = await textOf(res.bytes);
    expect(text).toContain('CERTIFICATE OF COMPLETION');
    expect(text).toContain('has successfully completed the course');
    expect(text).toContain('Issued by Plain Academy on March 15, 2026');
    expect(imageCount(res.bytes)).toBe(0);
    // The platform default accent (#1F4E79).
    expect(contentOf(res.bytes)).toMatch(/0\.1215\d* 0\.305\d* 0\.4745\d* SCN/);
    expect(qrModulesOf(res.bytes)).toEqual(expectedModules(`http://web.test/certificates/verify/${c.code}`));
  });

  it('renders without the logo when fetching it fails (not an image, too large, missing, slow); follows a redirect', async () => {
    for (const [path, images] of [
      ['/fake.png', 0],
      ['/huge.png', 0],
      ['/missing.png', 0],
      ['/redirect.png', 1],
      ['/slow.png', 0],
    ] as const) {
      await owner.agent
        .patch(`/api/v1/organizations/${org}`)
        .send({ cert_logo_url: `${logoBase}${path}` })
        .expect(200);
      const c = await cert({});
      const res = await pdfOf(holder.agent, c.id);
      expect({ path, status: res.status, images: imageCount(res.bytes) }).toEqual({ path, status: 200, images });
    }
    await owner.agent
      .patch(`/api/v1/organizations/${org}`)
      .send({ cert_logo_url: `${logoBase}/logo.png` })
      .expect(200);
  });

  it('marks a revoked certificate REVOCADO with a notice instead of refusing it', async () => {
    const c = await cert({ status: 'revoked', holder: 'Revoked Person' });
    const res = await pdfOf(holder.agent, c.id);
    expect(res.status).toBe(200);
    const text = await textOf(res.bytes);
    expect(text).toContain('REVOCADO');
    expect(text).toContain('Este certificado fue revocado el 1 de abril de 2026 y ya no es válido.');
  });

  it("another person's certificate, an unknown id and a malformed id are 404", async () => {
    const c = await cert({});
    for (const [who, id] of [
      [stranger, c.id],
      [owner, c.id],
      [holder, '00000000-0000-4000-8000-000000000000'],
      [holder, 'nope'],
    ] as const) {
      const res = await pdfOf(who.agent, id);
      expect(res.status).toBe(404);
    }
    const other = await adult(t);
    const otherOrg = await createOrganization(t, other, 'Token Org');
    await addMember(t, otherOrg, holder.user.id, 'student');
    const token = await personalToken(t, holder, otherOrg, 'read');
    expect((await pdfOf(bearer(t, token), c.id)).status).toBe(404);
    await t.http().get(`/api/v1/me/certificates/${c.id}/pdf`).expect(401);
  });

  it('allows 20 PDFs per minute per account, then 429 with Retry-After', async () => {
    const person = await adult(t);
    await addMember(t, org, person.user.id, 'student');
    const c = await cert({ user: person });
    for (let i = 0; i < 20; i++) expect((await pdfOf(person.agent, c.id)).status).toBe(200);
    const limited = await person.agent.get(`/api/v1/me/certificates/${c.id}/pdf`).expect(429);
    expect(limited.body.error.code).toBe('too_many_requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Per account: the holder is unaffected.
    expect((await pdfOf(holder.agent, (await cert({})).id)).status).toBe(200);
  });
});
