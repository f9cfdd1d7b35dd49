import { PDFParse } from 'pdf-parse';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ADMIN_EMAIL = 'template-admin@ops.test';
type Body = Record<string, unknown>;

async function pdfText(pdf: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    return (await parser.getText()).text.replace(/\s+/g, ' ');
  } finally {
    await parser.destroy();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function binary(res: any, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
}

/** extensions-v2 16.2: the stored platform template, its fallback, and the organization's preview PDF. */
describe('certificate template administration', () => {
  let t: TestApp;
  let admin: SignedIn;
  let owner: SignedIn;
  let teacher: SignedIn;
  let org: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL } });
    admin = await adult(t, ADMIN_EMAIL);
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Template Org');
    teacher = await adult(t);
    await addMember(t, org, teacher.user.id, 'teacher');
  });
  afterAll(() => t.close());

  it('answers the built default until saved; a PUT replaces it, is audited, and is what GET /certificate-template answers', async () => {
    const before = await admin.agent.get('/api/v1/admin/certificate-template').expect(200);
    expect(before.body).toEqual({
      template: {
        issuer_name: null,
        signature_name: null,
        signature_title: null,
        logo_url: null,
        footer_text: null,
        accent_color: '#1F4E79',
      },
      updated_at: null,
    });
    const put = await admin.agent
      .put('/api/v1/admin/certificate-template')
      .send({ signature_name: 'Ada Rector', signature_title: 'Rectora', footer_text: 'Platform footer' })
      .expect(200);
    expect(put.body.template).toEqual({
      issuer_name: null,
      signature_name: 'Ada Rector',
      signature_title: 'Rectora',
      logo_url: null,
      footer_text: 'Platform footer',
      accent_color: null,
    });
    expect(put.body.updated_at).toEqual(expect.any(String));
    const pub = await t.client().get('/api/v1/certificate-template').expect(200);
    expect(pub.body.template).toEqual(put.body.template);
    const [entry] = await t.db.query(
      `SELECT actor_id, organization_id, metadata FROM audit_log WHERE action = 'certificate_template.updated'`,
    );
    expect(entry).toEqual({
      actor_id: admin.user.id,
      organization_id: null,
      metadata: { fields: ['signature_name', 'signature_title', 'footer_text'] },
    });
  });

  it('validates the fields at and past their bounds', async () => {
    for (const [body, status] of [
      [{ issuer_name: 'i'.repeat(200) }, 200],
      [{ issuer_name: 'i'.repeat(201) }, 422],
      [{ logo_url: 'ftp://x.test/logo.png' }, 422],
      [{ logo_url: `https://x.test/${'l'.repeat(490)}` }, 200],
      [{ logo_url: `https://x.test/${'l'.repeat(500)}` }, 422],
      [{ footer_text: 'f'.repeat(501) }, 422],
      [{ accent_color: 'red' }, 422],
      [{ accent_color: '#A1b2C3' }, 200],
    ] as [Body, number][]) {
      const res = await admin.agent.put('/api/v1/admin/certificate-template').send(body);
      expect([JSON.stringify(body).slice(0, 40), res.status]).toEqual([JSON.stringify(body).slice(0, 40), status]);
    }
    await owner.agent.get('/api/v1/admin/certificate-template').expect(403);
    await owner.agent.put('/api/v1/admin/certificate-template').send({}).expect(403);
  });

  it("previews the organization's certificate: effective template, sample holder and code, marked", async () => {
    await admin.agent
      .put('/api/v1/admin/certificate-template')
      .send({ signature_name: 'Ada Rector', footer_text: 'Platform footer' })
      .expect(200);
    await owner.agent.patch(`/api/v1/organizations/${org}`).send({ footer_text: 'Org footer' }).expect(200);
    const res = await owner.agent
      .get(`/api/v1/organizations/${org}/certificate-template/preview.pdf`)
      .buffer(true)
      .parse(binary)
      .expect(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const text = await pdfText(res.body as Buffer);
    expect(text).toContain('Nombre Apellido');
    expect(text).toContain('CRS-XXXX-XXXX');
    expect(text).toContain('MUESTRA');
    expect(text).toContain('Ada Rector'); // the platform's field
    expect(text).toContain('Org footer'); // the organization's own field wins
    expect(text).not.toContain('Platform footer');
    const en = await owner.agent
      .get(`/api/v1/organizations/${org}/certificate-template/preview.pdf`)
      .query({ type: 'program', lang: 'en' })
      .buffer(true)
      .parse(binary)
      .expect(200);
    const enText = await pdfText(en.body as Buffer);
    expect(enText).toContain('Jane Doe');
    expect(enText).toContain('PRG-XXXX-XXXX');
    expect(enText).toContain('SAMPLE');
    await owner.agent
      .get(`/api/v1/organizations/${org}/certificate-template/preview.pdf`)
      .query({ type: 'x' })
      .expect(422);
    await teacher.agent.get(`/api/v1/organizations/${org}/certificate-template/preview.pdf`).expect(403);
  });

  it('previews: 20 per minute per account', async () => {
    const s = await adult(t);
    const own = await createOrganization(t, s, 'Preview limit');
    for (let i = 0; i < 20; i++)
      await s.agent
        .get(`/api/v1/organizations/${own}/certificate-template/preview.pdf`)
        .buffer(true)
        .parse(binary)
        .expect(200);
    expect((await s.agent.get(`/api/v1/organizations/${own}/certificate-template/preview.pdf`)).status).toBe(429);
  });
});
