// The account page's data flows in Chromium: exporting everything (the downloaded JSON holds the
// person's answers and profile), "Show older" paging through the activity log, and deleting the
// account after its confirmation (signed out; dev login again gives a new, empty account).
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { BASE, ANSWERS, launch, watch, devLogin, idle, apiAs, profileThroughApi, settle } from './helpers.mjs';

const EMAIL = 'eve@example.org';

let browser;
let context;
let page;
let api;
let profile;
let oldMe;
const problems = [];

before(async () => {
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = watch(await context.newPage(), problems);
  api = apiAs(context);
  await devLogin(page, EMAIL);
  profile = await profileThroughApi(api);
  const logged = await api.post('/integration/task-mappings', {
    external_task_id: 'export-1', task_label: 'Drafting the course', foundation: 'mission', minutes: 50,
    occurred_at: new Date(Date.now() - 3600000).toISOString(),
  });
  assert.equal(logged.status, 201);
  oldMe = (await api.get('/api/me')).body;
});

after(async () => {
  if (browser) await browser.close();
});

function rows() {
  return page.locator('#activity tr').count();
}

test('export: the downloaded JSON holds the person, the answers and the profile', async () => {
  await page.goto(`${BASE}/account.html`);
  await page.locator('#me-email', { hasText: EMAIL }).waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  assert.equal(download.suggestedFilename(), 'discovery-export.json');
  const data = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert.equal(data.user.email, EMAIL);
  assert.equal(data.user.id, oldMe.id);
  assert.equal(data.conversations.length, 1);
  assert.deepEqual(data.conversations[0].answers.map((a) => a.text), ANSWERS);
  assert.equal(data.profile.id, profile.id);
  for (const field of ['love_summary', 'mission_summary', 'near_term_goal_summary', 'long_term_goal_summary']) {
    assert.equal(data.profile[field], profile[field], field);
  }
  assert.equal(data.profile.enneagram_type, profile.enneagram_type);
  assert.ok(data.revisions.length >= 1);
  assert.deepEqual(data.task_mappings.map((m) => m.task_label), ['Drafting the course']);
  await page.locator('#status-export', { hasText: 'discovery-export.json' }).waitFor();
  assert.equal(await page.locator('#export').isEnabled(), true);
});

test('activity: "Show older" loads the next pages until the oldest entry', async () => {
  for (let i = 0; i < 60; i += 1) assert.equal((await api.get('/api/me')).status, 200);
  await settle();
  const all = (await api.get('/api/activity?limit=1000')).body;
  assert.equal(all.next_cursor, null);
  const before = all.items.length;
  assert.ok(before >= 60, `only ${before} entries`);
  const oldest = all.items[all.items.length - 1];

  await page.goto(`${BASE}/account.html`);
  await page.locator('#activity tr').first().waitFor();
  await idle(page);
  const more = page.locator('#more-activity');
  assert.equal(await rows(), 25);
  // Each row says where the request came from: here, the browser on this machine.
  const first = page.locator('#activity tr').first().locator('td');
  assert.equal(await first.nth(3).textContent(), '127.0.0.1');
  assert.equal(await more.isVisible(), true);

  await more.click();
  await page.waitForFunction(() => document.querySelectorAll('#activity tr').length === 50);
  let clicks = 1;
  while (await more.isVisible()) {
    const count = await rows();
    await more.click();
    clicks += 1;
    await page.waitForFunction((n) => document.querySelectorAll('#activity tr').length > n
      || document.getElementById('more-activity').hidden, count);
    assert.ok(clicks < 10, 'Show older never ends');
  }
  await idle(page);
  const shown = await rows();
  // Every entry there was when the page loaded, once: those before plus the few the page's own
  // first requests added; entries written after the first page are newer and not in the pages.
  assert.ok(shown >= before && shown <= before + 6, `${shown} rows for ${before} entries`);
  const last = page.locator('#activity tr').last();
  // The action in words, with the action the log records beside them.
  assert.equal(await last.locator('td').nth(1).locator('code.activity-route').textContent(), oldest.action);
  assert.equal(await last.locator('td').nth(1).textContent(), `Signed in (dev login) ${oldest.action}`);
  assert.equal(await last.locator('td').nth(3).textContent(), oldest.ip);
  assert.equal(await last.locator('td').nth(4).textContent(), String(oldest.status));
});

test('delete: a wrong e-mail address deletes nothing', async () => {
  await page.goto(`${BASE}/account.html`);
  await page.locator('#me-email', { hasText: EMAIL }).waitFor();
  await page.fill('#delete-confirm', 'not-eve@example.org');
  await page.click('#delete-form button[type="submit"]');
  await page.locator('#delete-confirm-error[role="alert"]', { hasText: 'nothing was deleted' }).waitFor();
  assert.equal((await api.get('/api/me')).status, 200);
  assert.equal((await api.get('/discovery/profile/me')).status, 200);
});

test('delete: with the confirmation the account goes, and the person is signed out', async () => {
  await page.fill('#delete-confirm', EMAIL.toUpperCase());
  await Promise.all([page.waitForURL(/\/login\?deleted=1/), page.click('#delete-form button[type="submit"]')]);
  await page.locator('#notice', { hasText: 'deleted' }).waitFor();
  assert.equal((await context.cookies()).some((c) => c.name === 'ds_access' || c.name === 'ds_refresh'), false);
  assert.equal((await api.get('/api/me')).status, 401);
  await page.goto(`${BASE}/account.html`);
  await page.waitForURL(/\/login\?redirect=/);
});

test('delete: dev login again gives a new, empty account', async () => {
  await devLogin(page, EMAIL);
  await page.locator('#greeting', { hasText: EMAIL }).waitFor();
  await page.locator('#next .card h2', { hasText: 'Begin your discovery' }).waitFor();
  const me = (await api.get('/api/me')).body;
  assert.equal(me.email, EMAIL);
  assert.notEqual(me.id, oldMe.id);
  assert.equal((await api.get('/discovery/profile/me')).status, 404);
  assert.equal((await api.get('/discovery/conversation/me')).status, 404);
  const data = (await api.get('/api/me/export')).body;
  assert.equal(data.profile, null);
  assert.deepEqual(data.conversations, []);
  assert.deepEqual(data.task_mappings, []);
  assert.deepEqual(data.revisions, []);
  assert.deepEqual(data.api_keys, []);
  await page.goto(`${BASE}/account.html`);
  await page.locator('#me-email', { hasText: EMAIL }).waitFor();
  await page.locator('#keys li', { hasText: 'No keys yet.' }).waitFor();
});

test('no console errors on any page', () => {
  assert.deepEqual(problems, []);
});
