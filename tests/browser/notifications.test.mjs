// Notifications in Chromium. The account page: check-ins by e-mail (disabled, and saying why, on
// a service without SMTP; turned on and off on one with it, lasting across reloads), webhooks
// (field errors next to the form, the signing secret shown once with its copy button, a test
// ping in the delivery log, the "disabled" badge, deleting after a confirmation, accessibility).
// The coaching page: `/coaching.html#checkin-<id>`, the link of a check-in's e-mail, scrolls to
// that check-in and focuses its note, also after a sign-in on the way.
// Run through ./run.sh, which starts both services and sets BASE_URL and MAIL_BASE_URL (the one
// with e-mail configured and no delivery worker: the webhook is added there, so nothing is sent).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, MAIL_BASE, launch, watch, devLogin, idle, apiAs, profileThroughApi, shot } from './helpers.mjs';
import { unnamedControls, tabWalk, lowContrast } from './a11y-checks.mjs';

const EMAIL = 'nia@example.org';
const HOOK = 'https://93.184.215.14/hook';
// Webhooks go to the service that delivers nothing; without it (run by hand), to the only one.
const HOOK_BASE = MAIL_BASE || BASE;

let browser;
const problems = [];
const contexts = {};

/** A signed-in page (and the API as that person) on the service at `base`, one context each. */
async function signedIn(base, { viewport = { width: 1280, height: 900 } } = {}) {
  if (!contexts[base]) {
    const context = await browser.newContext({ viewport });
    const page = watch(await context.newPage(), problems);
    await devLogin(page, EMAIL, base);
    contexts[base] = { context, page, api: apiAs(context, base) };
  }
  return contexts[base];
}

before(async () => {
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
});

async function openAccount(page, base) {
  await page.goto(`${base}/account.html`);
  await page.locator('#me-email', { hasText: EMAIL }).waitFor();
  await page.locator('#webhooks li').first().waitFor();
  await page.locator('#email-checkins-hint', { hasText: EMAIL }).waitFor();
}

function focused(page) {
  return page.evaluate(() => {
    const node = document.activeElement;
    return node ? { id: node.id, cls: node.className, label: node.getAttribute('aria-label') } : null;
  });
}

test('e-mail: on a service without SMTP the setting is disabled and says why', async () => {
  const { page, api } = await signedIn(BASE);
  await openAccount(page, BASE);
  const box = page.locator('#email-checkins');
  assert.equal(await box.isDisabled(), true);
  assert.equal(await box.isChecked(), false);
  const hint = await page.locator('#email-checkins-hint').textContent();
  assert.match(hint, /does not send e-mail/);
  assert.ok(hint.includes(EMAIL), hint);
  // The explanation is the checkbox's description, so a screen reader says it with the label.
  assert.equal(await box.getAttribute('aria-describedby'), 'email-checkins-hint');
  assert.equal(await page.locator('label[for="email-checkins"]').textContent().then((t) => t.trim()), 'E-mail me each check-in');
  assert.equal((await api.get('/api/me/notifications')).body.email_available, false);
});

test('e-mail: turned on and off where the server sends e-mail; each lasts across a reload', { skip: !MAIL_BASE && 'MAIL_BASE_URL is not set' }, async () => {
  const { page, api } = await signedIn(MAIL_BASE);
  await openAccount(page, MAIL_BASE);
  const box = page.locator('#email-checkins');
  await page.waitForFunction(() => !document.getElementById('email-checkins').disabled);
  assert.equal(await box.isChecked(), false);
  assert.match(await page.locator('#email-checkins-hint').textContent(), new RegExp(`Sent to ${EMAIL.replace('.', '\\.')}`));

  await box.check();
  await page.locator('#status-email-checkins', { hasText: `e-mailed to ${EMAIL}` }).waitFor();
  assert.equal((await focused(page)).id, 'email-checkins', 'the keyboard stays on the checkbox');
  assert.equal((await api.get('/api/me/notifications')).body.email_checkins, true);
  await openAccount(page, MAIL_BASE);
  assert.equal(await box.isChecked(), true);

  await box.uncheck();
  await page.locator('#status-email-checkins', { hasText: 'no longer e-mailed' }).waitFor();
  assert.equal((await api.get('/api/me/notifications')).body.email_checkins, false);
  await openAccount(page, MAIL_BASE);
  assert.equal(await box.isChecked(), false);
  assert.equal(await box.isDisabled(), false);
});

test('webhooks: what is wrong is said next to the field, which gets the focus', async () => {
  const { page, api } = await signedIn(HOOK_BASE);
  await openAccount(page, HOOK_BASE);
  await page.locator('#no-webhooks', { hasText: 'No webhooks yet.' }).waitFor();
  const url = page.locator('#webhook-url');
  const submit = page.locator('#webhook-form button[type="submit"]');

  // Nothing typed: said before asking the service.
  await submit.click();
  await page.locator('#webhook-url-error', { hasText: 'Enter the https address' }).waitFor();
  assert.equal(await url.getAttribute('aria-invalid'), 'true');
  assert.equal((await focused(page)).id, 'webhook-url');

  // No event ticked.
  await url.fill(HOOK);
  await page.uncheck('#webhook-events input[value="checkin.created"]');
  await submit.click();
  await page.locator('#webhook-events-error', { hasText: 'Choose at least one event' }).waitFor();
  assert.equal(await page.locator('#webhook-url-error').textContent(), '');
  assert.equal(await url.getAttribute('aria-invalid'), null);
  await page.check('#webhook-events input[value="checkin.created"]');

  // The service's rules on the URL (422 naming `url`), in its words.
  for (const [bad, words] of [['http://93.184.215.14/hook', 'https'], ['https://127.0.0.1/hook', 'private']]) {
    await url.fill(bad);
    await submit.click();
    await page.locator('#webhook-url-error', { hasText: words }).waitFor();
    assert.equal(await page.locator('#webhook-events-error').textContent(), '');
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    assert.equal((await focused(page)).id, 'webhook-url', bad);
  }
  assert.deepEqual((await api.get('/api/me/webhooks')).body, []);
  await page.locator('#no-webhooks').waitFor();
});

test('webhooks: added with its secret shown once, tested (a ping in the log), deleted after a confirmation', async () => {
  const { context, page, api } = await signedIn(HOOK_BASE);
  await openAccount(page, HOOK_BASE);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: HOOK_BASE });
  await page.fill('#webhook-url', HOOK);
  await page.check('#webhook-events input[value="profile.revised"]');
  await page.click('#webhook-form button[type="submit"]');

  const secret = (await page.locator('#new-webhook-secret').textContent()).trim();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const box = page.locator('#new-webhook-box');
  const words = await box.textContent();
  assert.match(words, /shown only this once/);
  assert.match(words, /webhook-signature/);
  assert.match(words, /Standard Webhooks/);
  assert.equal(await page.locator('#webhook-url').inputValue(), '');
  assert.equal(await page.locator('#webhook-url-error').textContent(), '');

  const item = page.locator('#webhooks li.webhook');
  await item.waitFor();
  assert.equal(await item.count(), 1);
  assert.equal(await item.locator('.webhook-url').textContent(), HOOK);
  assert.equal(await item.locator('.webhook-events').textContent(), 'Events: checkin.created, profile.revised');
  assert.equal(await item.locator('.badge').count(), 0);
  const listed = (await api.get('/api/me/webhooks')).body;
  assert.equal(listed.length, 1);
  assert.equal(listed[0].secret, undefined);
  const id = listed[0].id;
  assert.equal(await item.getAttribute('data-id'), id);

  // The copy button puts the secret on the clipboard.
  await page.click('#copy-webhook-secret');
  await page.locator('#status-copy-webhook-secret', { hasText: 'copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);

  // Everything in one state, checked for accessibility: the secret, the log open, the question.
  await item.locator('summary').click();
  await item.locator('tbody tr').first().waitFor();
  assert.equal(await item.locator('tbody').textContent(), 'Nothing sent yet.');
  await item.locator('.delete-webhook').click();
  await item.locator('.delete-confirm').waitFor({ state: 'visible' });
  await idle(page);
  assert.deepEqual(await unnamedControls(page), []);
  assert.deepEqual(await lowContrast(page), []);
  assert.deepEqual((await tabWalk(page)).problems, []);
  await shot(page, 'account-webhooks');
  // "Keep it": nothing deleted, the keyboard back on Delete.
  await item.locator('.delete-confirm button.secondary').click();
  assert.equal(await item.locator('.delete-confirm').isVisible(), false);
  assert.equal((await focused(page)).label, `Delete webhook ${HOOK}`);

  // Shown once: not after a reload, anywhere on the page.
  await openAccount(page, HOOK_BASE);
  assert.equal(await page.locator('#new-webhook-secret').count(), 0);
  assert.equal((await page.content()).includes(secret), false);

  // "Send test": a ping is queued and shows in the endpoint's log; the keyboard stays put.
  const test = item.locator('.test-webhook');
  await test.focus();
  await page.keyboard.press('Enter');
  const ping = item.locator('tbody tr.delivery[data-event="ping"]');
  await ping.waitFor();
  assert.equal(await item.locator('details').getAttribute('open'), '');
  const cells = await ping.locator('td').allTextContents();
  assert.equal(cells[1], 'ping');
  // No delivery worker runs on this service: the ping waits (elsewhere it may have been tried).
  if (MAIL_BASE) {
    assert.equal(cells[2], 'Pending');
    assert.equal(cells[3], '0');
  } else {
    assert.match(cells[2], /^(Pending|Delivered|Failed)/);
  }
  await item.locator('#status-webhook-test', { hasText: 'A test (ping) is on its way' }).waitFor();
  assert.equal((await focused(page)).label, `Send test to ${HOOK}`);
  const log = (await api.get(`/api/me/webhooks/${id}/deliveries`)).body;
  assert.deepEqual(log.items.map((d) => d.event_type), ['ping']);

  // Delete, confirmed: gone from the page and the service; the keyboard goes to the form.
  await item.locator('.delete-webhook').click();
  await item.locator('.confirm-delete').click();
  await page.locator('#no-webhooks').waitFor();
  await page.locator('#status-webhook-delete', { hasText: 'is deleted' }).waitFor();
  assert.equal((await focused(page)).id, 'webhook-url');
  assert.deepEqual((await api.get('/api/me/webhooks')).body, []);
  assert.equal((await api.get(`/api/me/webhooks/${id}/deliveries`)).status, 404);
});

test('webhooks: an endpoint the service disabled carries a "disabled" badge', async () => {
  const { page } = await signedIn(HOOK_BASE);
  // No 20 failed deliveries here: the list is answered as the service would answer it then.
  await page.route('**/api/me/webhooks', (route) => (route.request().method() === 'GET'
    ? route.fulfill({ json: [{ id: '0193a0c4-0000-7000-8000-000000000001', url: 'https://hooks.example.com/<b>x</b>',
      events: ['checkin.created'], created_at: '2026-11-01T10:00:00Z', disabled_at: '2026-11-20T10:00:00Z' }] })
    : route.fallback()));
  try {
    await openAccount(page, HOOK_BASE);
    const item = page.locator('#webhooks li.webhook');
    assert.equal(await item.locator('.badge.warn').textContent(), 'disabled');
    assert.match(await item.textContent(), /disabled .*last 20 deliveries all failed/);
    // Text, never markup.
    assert.equal(await item.locator('.webhook-url').textContent(), 'https://hooks.example.com/<b>x</b>');
    assert.equal(await item.locator('b').count(), 0);
  } finally {
    await page.unroute('**/api/me/webhooks');
  }
});

test('coaching: /coaching.html#checkin-<id> scrolls to that check-in and focuses its note', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 700 } });
  try {
    const page = watch(await context.newPage(), problems);
    const api = apiAs(context);
    await devLogin(page, 'otto@example.org');
    await profileThroughApi(api);
    assert.equal((await api.post('/discovery/profile/me/affirm')).status, 200);
    const ids = [];
    for (let i = 0; i < 4; i += 1) {
      const created = await api.post('/coaching/checkins');
      assert.equal(created.status, 201, JSON.stringify(created.body));
      ids.push(created.body.id);
    }
    const [oldest, second] = ids;
    assert.equal((await api.post(`/coaching/checkins/${second}/response`, { still_valid: true })).status, 200);

    const landed = async (id, focusId) => {
      await page.waitForFunction((f) => document.activeElement && document.activeElement.id === f, focusId);
      const where = await page.evaluate((target) => {
        const box = document.getElementById(target).getBoundingClientRect();
        return { top: box.top, height: innerHeight, scrolled: scrollY };
      }, `checkin-${id}`);
      assert.ok(where.scrolled > 0, 'the page scrolled');
      assert.ok(where.top >= -1 && where.top < where.height / 2, `check-in at ${where.top} of ${where.height}`);
    };

    // The oldest is last in the list, below the fold: the page goes there, the note focused.
    await page.goto(`${BASE}/coaching.html#checkin-${oldest}`);
    await landed(oldest, `note-${oldest}`);
    assert.equal(await page.locator('#checkin-list li.checkin').last().getAttribute('id'), `checkin-${oldest}`);
    assert.equal(await page.locator('#checkin-list li.checkin').count(), 4);

    // Answered already: no form, so the check-in itself takes the focus.
    await page.goto(`${BASE}/coaching.html#checkin-${second}`);
    await landed(second, `checkin-${second}`);
    await page.locator(`#checkin-${second} .response`, { hasText: 'Still holds.' }).waitFor();

    // Signed out on the way: after signing in the page still goes to the check-in. (Left for
    // a blank page, not one of ours: a page of ours that notices the lost session sends the
    // tab to the sign-in page itself, racing the navigation below.)
    await page.goto('about:blank');
    await context.clearCookies();
    await page.goto(`${BASE}/coaching.html#checkin-${oldest}`);
    await page.waitForURL(/\/login\?redirect=/);
    await page.locator('#dev').waitFor({ state: 'visible' });
    await page.fill('#dev-email', 'otto@example.org');
    await Promise.all([page.waitForURL(/\/coaching\.html/), page.click('#dev-form button[type="submit"]')]);
    await landed(oldest, `note-${oldest}`);
    assert.equal(new URL(page.url()).hash, `#checkin-${oldest}`);

    // A link to one no longer listed says so, and the page stays as it is.
    await page.goto(`${BASE}/coaching.html#checkin-00000000-0000-4000-8000-000000000000`);
    await page.locator('#notice.error', { hasText: 'not among your latest' }).waitFor();
  } finally {
    await context.close();
  }
});

test('no console errors on any page', () => {
  assert.deepEqual(problems, []);
});
