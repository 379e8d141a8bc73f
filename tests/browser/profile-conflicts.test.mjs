// The profile changed elsewhere, in a second tab of the same person: a stale save is refused by
// If-Match (409 conflict), explained in words, and overwrites nothing; once the profile is
// affirmed in one tab, a reflection or an edit sent from another is refused (409 profile_locked),
// explained in words, and the page shows the locked profile.
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, watch, devLogin, apiAs, profileThroughApi } from './helpers.mjs';

const EMAIL = 'kim@example.org';

let browser;
let context;
let api;
let profile;
const problems = [];

before(async () => {
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const first = watch(await context.newPage(), problems);
  api = apiAs(context);
  await devLogin(first, EMAIL);
  profile = await profileThroughApi(api);
  await first.close();
});

after(async () => {
  if (browser) await browser.close();
});

async function profileTab() {
  const p = watch(await context.newPage(), problems);
  await p.goto(`${BASE}/profile.html`);
  await p.locator('#triad').waitFor();
  await p.locator('#reflect-form').waitFor();
  return p;
}

async function startEdit(p, field, text) {
  await p.click(`#field-${field} button[aria-label^="Edit"]`);
  await p.fill(`#edit-${field}`, text);
}

test('a save from a stale tab is refused with the conflict explained, and overwrites nothing', async () => {
  const a = await profileTab();
  const b = await profileTab();
  await startEdit(b, 'mission_summary', 'Written in tab B.');
  await startEdit(a, 'mission_summary', 'Written in tab A.');
  await a.click('#field-mission_summary button[type="submit"]');
  await a.locator('#field-mission_summary p.value', { hasText: 'Written in tab A.' }).waitFor();

  await b.click('#field-mission_summary button[type="submit"]');
  // Said beside the field, where the person pressed Save, as an alert that takes the focus.
  const notice = b.locator('#field-mission_summary #status-field-mission_summary .status-error');
  await notice.waitFor();
  assert.match(await notice.textContent(), /changed elsewhere.*latest version.*again/);
  assert.equal(await notice.getAttribute('role'), 'alert');
  assert.equal(await b.evaluate(() => document.activeElement.classList.contains('status-error')), true);
  // Tab B now shows the latest profile, with A's words, and its own were not saved.
  await b.locator('#field-mission_summary p.value', { hasText: 'Written in tab A.' }).waitFor();
  assert.equal(await b.locator('#edit-mission_summary').count(), 0);
  assert.match(await b.locator('#summary').textContent(), new RegExp(`Version ${profile.version + 1},`));
  const saved = (await api.get('/discovery/profile/me')).body;
  assert.equal(saved.mission_summary, 'Written in tab A.');
  assert.equal(saved.version, profile.version + 1);
  const edits = (await api.get('/discovery/profile/me/revisions')).body.filter((r) => r.origin === 'manual_edit');
  assert.equal(edits.length, 1);

  // Made again on the latest version, the edit from tab B goes through.
  await startEdit(b, 'mission_summary', 'Written in tab B, after all.');
  await b.click('#field-mission_summary button[type="submit"]');
  await b.locator('#field-mission_summary p.value', { hasText: 'Written in tab B, after all.' }).waitFor();
  assert.equal((await api.get('/discovery/profile/me')).body.version, profile.version + 2);
  await a.close();
  await b.close();
});

test('affirmed in one tab: a reflection and an edit from others are refused, explained as locked', async () => {
  const affirming = await profileTab();
  const reflecting = await profileTab();
  const editing = await profileTab();
  await reflecting.fill('#reflect-message', 'Maybe my vocation is writing, too.');
  await startEdit(editing, 'vocation_summary', 'Writing and teaching.');

  await affirming.click('#affirm-start');
  await affirming.click('#affirm-yes');
  await affirming.locator('#locked-note').waitFor();
  const affirmed = (await api.get('/discovery/profile/me')).body;
  assert.equal(affirmed.locked, true);

  await reflecting.click('#reflect-form button[type="submit"]');
  const reflectNotice = reflecting.locator('#reflection #status-reflect .status-error');
  await reflectNotice.waitFor();
  assert.match(await reflectNotice.textContent(), /affirmed.*locked.*no longer be edited or revised in reflection/);
  assert.equal(await reflectNotice.getAttribute('role'), 'alert');
  await reflecting.locator('#locked-note').waitFor();
  // The note comes first; the form goes once the page has read the reflection again.
  await reflecting.locator('#reflect-form').waitFor({ state: 'detached' });
  assert.equal(await reflecting.locator('#reflect-form').count(), 0);
  assert.equal(await reflecting.locator('#chat li', { hasText: 'writing, too' }).count(), 0);
  const messages = (await api.get('/discovery/profile/me/reflection')).body;
  assert.equal(messages.some((m) => m.text.includes('writing, too')), false);

  await editing.click('#field-vocation_summary button[type="submit"]');
  // The affirmation changed the version too; the page says why the edit cannot be made.
  const editNotice = editing.locator('#field-vocation_summary #status-field-vocation_summary .status-error');
  await editNotice.waitFor();
  assert.match(await editNotice.textContent(), /affirmed.*locked.*no longer be edited/);
  assert.doesNotMatch(await editNotice.textContent(), /make your edit again/);
  await editing.locator('#locked-note').waitFor();
  assert.equal(await editing.locator('#fields button').count(), 0);
  // Nothing changed after the affirmation.
  assert.deepEqual((await api.get('/discovery/profile/me')).body, affirmed);
});

test('no console errors in any tab', () => {
  assert.deepEqual(problems, []);
});
