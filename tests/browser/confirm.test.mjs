// Destructive actions on the account page ask first and report where the person is, at 1280 and
// 390 px: revoking an API key and ending another session show a question beside the button
// ("Keep it" keeps it and gives the keyboard back), and once confirmed the result shows beside the
// list (in view, within a screen of the button) with the focus on the next item or the form, and
// the service agrees. An empty key name is refused beside its field, in the page's words, with
// nothing sent (not the browser's own bubble). Webhooks and rules are covered by
// notifications.test.mjs and classify.test.mjs.
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, WIDTHS, sharedBrowser, personAt, idle, placeOf, assertBeside, assertInView, requestsTo,
} from './helpers.mjs';

const shared = sharedBrowser();

/** The focused element's id and accessible label. */
function focused(page) {
  return page.evaluate(() => ({ id: document.activeElement.id, label: document.activeElement.getAttribute('aria-label') }));
}

for (const size of WIDTHS) {
  const px = `${size.width} px`;

  test(`${px}: an empty key name is refused beside the field, nothing sent`, async () => {
    const problems = [];
    const { context, page } = await personAt(shared.browser, size, `blank-key-${size.width}@example.org`, problems);
    try {
      await page.goto(`${BASE}/account.html`);
      await idle(page);
      const sent = requestsTo(page, 'POST', /^\/api\/me\/api-keys$/);
      await page.fill('#key-name', '   ');
      await page.click('#key-form button[type="submit"]');
      await page.locator('#key-name-error', { hasText: 'Name the key first' }).waitFor();
      assert.equal(await page.getAttribute('#key-name', 'aria-invalid'), 'true');
      assert.equal((await focused(page)).id, 'key-name');
      await assertInView(page, page.locator('#key-name-error'), 'the refusal');
      assert.deepEqual(sent, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test(`${px}: revoking a key asks first, then says so beside the list`, async () => {
    const problems = [];
    const { context, page, api } = await personAt(shared.browser, size, `revoke-key-${size.width}@example.org`, problems);
    try {
      for (const name of ['first', 'second']) {
        assert.equal((await api.post('/api/me/api-keys', { name, scopes: ['integration'] })).status, 201);
      }
      await page.goto(`${BASE}/account.html`);
      const first = page.locator('#keys li.api-key', { hasText: 'first' });
      await first.waitFor();
      const revoke = first.locator('button.revoke-key');
      await revoke.scrollIntoViewIfNeeded();
      const control = await placeOf(revoke);

      // "Keep it": nothing revoked, the keyboard back on Revoke.
      await revoke.click();
      const question = first.locator('.delete-confirm');
      await question.waitFor({ state: 'visible' });
      assert.match(await question.textContent(), /Revoke the key “first”\? Every tool that uses it stops working/);
      await assertInView(page, question.locator('button.confirm-delete'), 'the confirming button');
      await question.locator('button.keep').click();
      await question.waitFor({ state: 'hidden' });
      assert.equal((await focused(page)).label, 'Revoke key first');
      assert.equal((await api.get('/api/me/api-keys')).body.length, 2);

      const firstId = await first.getAttribute('data-id');
      await revoke.click();
      await question.locator('button.confirm-delete').click();
      await assertBeside(page, control, page.locator('#status-key-revoke', { hasText: 'The key “first” is revoked.' }), 'key revoked');
      // (The result is said inside the next key's item, so the revoked one is found by its id.)
      await page.locator(`#keys li.api-key[data-id="${firstId}"]`).waitFor({ state: 'detached' });
      assert.equal((await focused(page)).label, 'Revoke key second');
      assert.deepEqual((await api.get('/api/me/api-keys')).body.map((k) => k.name), ['second']);
      // The notice at the top of the page stays empty: the result is where the person is.
      assert.equal((await page.textContent('#notice')).trim(), '');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test(`${px}: ending another session asks first, then says so beside the list`, async () => {
    const problems = [];
    const email = `end-session-${size.width}@example.org`;
    const { context, page, api } = await personAt(shared.browser, size, email, problems);
    try {
      const other = await fetch(`${BASE}/api/auth/dev-login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'Other device' },
        body: JSON.stringify({ email }),
      });
      assert.equal(other.status, 200);
      await page.goto(`${BASE}/account.html`);
      const item = page.locator('#sessions li.session[data-current="false"]');
      await item.waitFor();
      const revoke = item.locator('button.revoke-session');
      await revoke.scrollIntoViewIfNeeded();
      const control = await placeOf(revoke);
      await revoke.click();
      const question = item.locator('.delete-confirm');
      await question.waitFor({ state: 'visible' });
      assert.match(await question.textContent(), /must sign in again/);
      await question.locator('button.confirm-delete').click();
      await assertBeside(page, control, page.locator('#status-session', { hasText: 'That session is signed out.' }), 'session ended');
      await item.waitFor({ state: 'detached' });
      // The keyboard goes on to this browser's own session ("Sign out here"), the one left.
      assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Sign out here');
      assert.equal((await api.get('/api/me/sessions')).body.length, 1);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
