import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { CREATE_ACCOUNT, MESSAGE_ACCOUNT } from '@/modules/community/support/testing';
import { SupportService } from '@/modules/community/support';
import { UsersRepository } from '@/modules/identity/users/testing';
import { signIn, type SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ADMIN_EMAIL = 'support-admin@ops.test';
const INBOX = 'desk@support.test';
const DAY = 86_400_000;
const TICKETS = '/api/v1/support/tickets';
const DESK = '/api/v1/admin/support/tickets';

type Body = Record<string, unknown>;

/**
 * Support (extensions-v2 19): tickets with markdown messages, the person's and staff's views, states and their
 * transitions (reply, reopen within 30 days, 409 after, auto-close after 14 days), emails, the `support.replied`
 * event, limits, minors.
 */
describe('support', () => {
  let t: TestApp;
  let staff: SignedIn;
  let person: SignedIn;
  let other: SignedIn;
  let org: string;
  let orgOther: string;

  async function open(s: SignedIn, body: Body = {}): Promise<Body & { id: string; number: number }> {
    await t.app.get(RateLimitService).reset(CREATE_ACCOUNT, s.user.id);
    const res = await s.agent
      .post(TICKETS)
      .send({ subject: 'Cannot log in', body: 'Help **please**', category: 'access', ...body });
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL, SUPPORT_INBOX: INBOX } });
    staff = await adult(t, ADMIN_EMAIL);
    await t.db.query(`UPDATE users SET name = 'Sofía Staff' WHERE id = $1`, [staff.user.id]);
    person = await adult(t);
    other = await adult(t);
    org = await createOrganization(t, person, 'Person Org');
    orgOther = await createOrganization(t, other, 'Other Org');
  });
  afterAll(() => t.close());

  it('opens a ticket with its first message, and emails the person and the inbox', async () => {
    const ticket = await open(person, {
      organization_id: org,
      body: 'Hola <script>alert(1)</script> [x](javascript:alert(1)) **bold**',
      client: { user_agent: 'UA', app_version: '1.2.3', route: '/login' },
    });
    expect(ticket).toMatchObject({
      subject: 'Cannot log in',
      category: 'access',
      organization_id: org,
      status: 'open',
      priority: 'normal',
      closed_at: null,
    });
    expect(typeof ticket.number).toBe('number');
    const messages = ticket.messages as Body[];
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ author: { kind: 'user', name: 'Test Person' } });
    expect(messages[0].internal).toBeUndefined();
    expect(messages[0].body_html).toContain('<strong>bold</strong>');
    expect(messages[0].body_html).not.toContain('<script');
    expect(messages[0].body_html).not.toContain('href="javascript');
    await t.mail.waitFor((m) => m.to.includes(person.email) && m.subject.includes(`#${ticket.number}`));
    const inbox = await t.mail.waitFor((m) => m.to.includes(INBOX));
    expect(inbox.subject).toBe(`New support request #${ticket.number} (access)`);
  });

  it('validates: lengths, category, an organization of the caller', async () => {
    for (const [body, status] of [
      [{ subject: '' }, 422],
      [{ subject: 'x'.repeat(201) }, 422],
      [{ subject: 'x'.repeat(200) }, 201],
      [{ body: 'y'.repeat(10000) }, 201],
      [{ body: 'y'.repeat(10001) }, 422],
      [{ body: '   ' }, 422],
      [{ category: 'nope' }, 422],
      [{ organization_id: orgOther }, 404],
      [{ client: { app_version: 'v'.repeat(33) } }, 422],
    ] as [Body, number][]) {
      await t.app.get(RateLimitService).reset(CREATE_ACCOUNT, person.user.id);
      const res = await person.agent.post(TICKETS).send({ subject: 'S', body: 'B', category: 'other', ...body });
      expect([Object.keys(body)[0], res.status]).toEqual([Object.keys(body)[0], status]);
    }
  });

  it('lists and reads only the caller’s tickets', async () => {
    const mine = await open(person);
    const theirs = await open(other);
    const list = await person.agent.get(TICKETS).expect(200);
    expect(list.body.items[0].id).toBe(mine.id);
    expect(list.body.items.map((i: Body) => i.id)).not.toContain(theirs.id);
    await person.agent.get(`${TICKETS}/${theirs.id}`).expect(404);
    await person.agent.post(`${TICKETS}/${theirs.id}/messages`).send({ body: 'hi' }).expect(404);
    await person.agent.post(`${TICKETS}/${theirs.id}/close`).expect(404);
    await person.agent.get(`${TICKETS}/not-a-uuid`).expect(404);
    expect((await person.agent.get(TICKETS).query({ status: 'closed' }).expect(200)).body.items).toEqual([]);
  });

  it('a bearer token sees its organization’s tickets and those without one', async () => {
    const inOrg = await open(person, { organization_id: org });
    const none = await open(person);
    await addMember(t, orgOther, person.user.id, 'student');
    const elsewhere = await open(person, { organization_id: orgOther });
    const token = bearer(t, await personalToken(t, person, org, 'read'));
    const ids = (await token.get(TICKETS).query({ limit: 200 }).expect(200)).body.items.map((i: Body) => i.id);
    expect(ids).toEqual(expect.arrayContaining([inOrg.id, none.id]));
    expect(ids).not.toContain(elsewhere.id);
    await token.get(`${TICKETS}/${elsewhere.id}`).expect(404);
  });

  it('staff reply: waiting_on_user, email with the text, support.replied; internal notes stay hidden', async () => {
    const ticket = await open(person);
    await person.agent.get(DESK).expect(403);
    const note = await staff.agent.post(`${DESK}/${ticket.id}/messages`).send({ body: 'secret note', internal: true });
    expect(note.status).toBe(201);
    expect(note.body.internal).toBe(true);
    expect((await person.agent.get(`${TICKETS}/${ticket.id}`).expect(200)).body.status).toBe('open');
    const reply = await staff.agent.post(`${DESK}/${ticket.id}/messages`).send({ body: 'Try **this**' }).expect(201);
    expect(reply.body).toMatchObject({ author: { kind: 'staff', name: 'Sofía Staff' }, internal: false });
    const seen = (await person.agent.get(`${TICKETS}/${ticket.id}`).expect(200)).body;
    expect(seen.status).toBe('waiting_on_user');
    expect(seen.messages.map((m: Body) => m.body)).toEqual(['Help **please**', 'Try **this**']);
    expect(seen.messages[1].author).toEqual({ kind: 'staff', name: 'Sofía Staff' });
    const mail = await t.mail.waitFor((m) => m.to.includes(person.email) && m.text.includes('Try **this**'));
    expect(mail.text).toContain(`http://web.test/support/${ticket.id}`);
    const events = await t.db.query(
      `SELECT payload, actor_id FROM domain_events WHERE name = 'support.replied' AND payload->>'ticket_id' = $1`,
      [ticket.id],
    );
    expect(events).toEqual([{ payload: { ticket_id: ticket.id, user_id: person.user.id }, actor_id: staff.user.id }]);
    const desk = (await staff.agent.get(`${DESK}/${ticket.id}`).expect(200)).body;
    expect(desk.messages.map((m: Body) => [m.body, m.internal])).toEqual([
      ['Help **please**', false],
      ['secret note', true],
      ['Try **this**', false],
    ]);
    expect(desk.requester).toEqual({ user_id: person.user.id, name: 'Test Person', email: person.email });
    // The person answers: open again.
    await person.agent.post(`${TICKETS}/${ticket.id}/messages`).send({ body: 'Thanks' }).expect(201);
    expect((await person.agent.get(`${TICKETS}/${ticket.id}`).expect(200)).body.status).toBe('open');
  });

  it('close is idempotent; a message within 30 days reopens; after 30 days 409 ticket_closed', async () => {
    const ticket = await open(person);
    const closed = await person.agent.post(`${TICKETS}/${ticket.id}/close`).expect(200);
    expect(closed.body.status).toBe('closed');
    const again = await person.agent.post(`${TICKETS}/${ticket.id}/close`).expect(200);
    expect(again.body.closed_at).toBe(closed.body.closed_at);
    await person.agent.post(`${TICKETS}/${ticket.id}/messages`).send({ body: 'Reopen' }).expect(201);
    const reopened = (await person.agent.get(`${TICKETS}/${ticket.id}`).expect(200)).body;
    expect([reopened.status, reopened.closed_at]).toEqual(['open', null]);
    await person.agent.post(`${TICKETS}/${ticket.id}/close`).expect(200);
    // Just under 30 days: reopens; at 30 days: refused.
    await t.db.query(`UPDATE support_tickets SET closed_at = $2 WHERE id = $1`, [
      ticket.id,
      new Date(t.clock.nowMs() - 30 * DAY + 60_000),
    ]);
    await person.agent.post(`${TICKETS}/${ticket.id}/messages`).send({ body: 'Still' }).expect(201);
    await person.agent.post(`${TICKETS}/${ticket.id}/close`).expect(200);
    await t.db.query(`UPDATE support_tickets SET closed_at = $2 WHERE id = $1`, [
      ticket.id,
      new Date(t.clock.nowMs() - 30 * DAY),
    ]);
    const res = await person.agent.post(`${TICKETS}/${ticket.id}/messages`).send({ body: 'Late' });
    expect([res.status, res.body.error.code]).toEqual([409, 'ticket_closed']);
  });

  it('auto-closes tickets waiting on the person for 14 days', async () => {
    const waiting = await open(person);
    const fresh = await open(person);
    for (const id of [waiting.id, fresh.id])
      await staff.agent.post(`${DESK}/${id}/messages`).send({ body: 'Answer' }).expect(201);
    await t.db.query(`UPDATE support_tickets SET last_staff_reply_at = $2 WHERE id = $1`, [
      waiting.id,
      new Date(t.clock.nowMs() - 14 * DAY),
    ]);
    await t.db.query(`UPDATE support_tickets SET last_staff_reply_at = $2 WHERE id = $1`, [
      fresh.id,
      new Date(t.clock.nowMs() - 14 * DAY + 60_000),
    ]);
    await t.app.get(SupportService).autoClose();
    expect((await person.agent.get(`${TICKETS}/${waiting.id}`).expect(200)).body.status).toBe('closed');
    expect((await person.agent.get(`${TICKETS}/${fresh.id}`).expect(200)).body.status).toBe('waiting_on_user');
  });

  it('staff desk: filters, search by subject or number, status and priority changes', async () => {
    const ticket = await open(other, { subject: 'Billing question zebra', category: 'billing' });
    const bySubject = await staff.agent.get(DESK).query({ q: 'zebra' }).expect(200);
    expect(bySubject.body.items.map((i: Body) => i.id)).toEqual([ticket.id]);
    const byNumber = await staff.agent
      .get(DESK)
      .query({ q: String(ticket.number) })
      .expect(200);
    expect(byNumber.body.items.map((i: Body) => i.id)).toEqual([ticket.id]);
    const byCategory = await staff.agent.get(DESK).query({ category: 'billing' }).expect(200);
    expect(byCategory.body.items.every((i: Body) => i.category === 'billing')).toBe(true);
    const patched = await staff.agent.patch(`${DESK}/${ticket.id}`).send({ priority: 'high', status: 'closed' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ priority: 'high', status: 'closed' });
    expect(patched.body.closed_at).not.toBeNull();
    await staff.agent.patch(`${DESK}/${ticket.id}`).send({ priority: 'urgent' }).expect(422);
    await staff.agent.get(`${DESK}/00000000-0000-4000-8000-000000000000`).expect(404);
  });

  it('limits: 10 tickets per day per account, 30 messages per hour', async () => {
    const s = await adult(t);
    for (let i = 0; i < 10; i++)
      await s.agent
        .post(TICKETS)
        .send({ subject: `T${i}`, body: 'b', category: 'other' })
        .expect(201);
    const res = await s.agent.post(TICKETS).send({ subject: 'T11', body: 'b', category: 'other' });
    expect([res.status, res.body.error.code]).toEqual([429, 'too_many_requests']);
    const ticket = (await s.agent.get(TICKETS).expect(200)).body.items[0];
    await t.app.get(RateLimitService).reset(MESSAGE_ACCOUNT, s.user.id);
    for (let i = 0; i < 30; i++)
      await s.agent
        .post(`${TICKETS}/${ticket.id}/messages`)
        .send({ body: `m${i}` })
        .expect(201);
    expect((await s.agent.post(`${TICKETS}/${ticket.id}/messages`).send({ body: 'one more' })).status).toBe(429);
  });

  it('minors may write to support', async () => {
    const minor = await signIn(t);
    await t.app.get(UsersRepository).update(minor.user.id, { ageBracket: 'under_18' }, t.clock.now());
    const res = await minor.agent.post(TICKETS).send({ subject: 'Hi', body: 'Help', category: 'other' });
    expect(res.status).toBe(201);
    await minor.agent.post(`${TICKETS}/${res.body.id}/messages`).send({ body: 'more' }).expect(201);
    await minor.agent.post(`${TICKETS}/${res.body.id}/close`).expect(200);
  });
});
