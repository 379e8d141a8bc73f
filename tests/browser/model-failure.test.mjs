// A failing model is reported beside the button that waited for it, in plain words, with a retry,
// at desktop (1280 px) and phone (390 px) width. The third service of run.sh (BROKEN_BASE_URL)
// has LLM_PROVIDER=openai pointed at a port where nothing listens, so every model call fails
// (502 coach_unavailable): completing the discovery and a reflection turn both say so, offer
// "Try again" (which asks again), and change nothing. A lost connection is reported the same way,
// and "Try again" then goes through. The person's profile is made on the second service
// (MAIL_BASE_URL, offline engine), whose database the third one shares.
// Run through ./run.sh, which starts the services and sets the URLs.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAIL_BASE, BROKEN_BASE, WIDTHS, sharedBrowser, answerThroughApi, profileThroughApi, personAt, placeOf,
  assertBeside, requestsTo,
} from './helpers.mjs';

const shared = sharedBrowser();
const problems = [];

before(() => {
  assert.ok(MAIL_BASE && BROKEN_BASE, 'run.sh starts the services with e-mail and with a failing model');
});

/** A person signed in to the service at `base` at `size`: `{context, page, api}`. */
function person(size, email, base) {
  return personAt(shared.browser, size, email, problems, base);
}

/** The failure beside `key`'s control: an alert in plain words, with "Try again", holding the focus. */
async function assertFailure(page, control, key, words, what) {
  const alert = page.locator(`#status-${key} .status-error[role="alert"]`);
  await assertBeside(page, control, alert.filter({ hasText: words }), what);
  assert.match(await alert.textContent(), /Nothing was changed/);
  const retry = alert.locator('button.retry', { hasText: 'Try again' });
  await assertBeside(page, control, retry, `${what}: its retry`);
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains('status-error')), true, `${what}: the focus is on the error`);
  return retry;
}

for (const size of WIDTHS) {
  const px = `${size.width} px`;

  test(`${px}: completing the discovery with a failing model says so beside the button, with a retry`, async () => {
    const { context, page, api } = await person(size, `fail-complete-${size.width}@example.org`, BROKEN_BASE);
    await answerThroughApi(api);
    const completions = requestsTo(page, 'POST', /^\/discovery\/conversation\/me\/complete$/);
    await page.goto(`${BROKEN_BASE}/discovery.html`);
    const complete = page.locator('#complete');
    await complete.waitFor();
    const control = await placeOf(complete);
    await complete.click();
    const retry = await assertFailure(page, control, 'complete', 'The language model did not answer', 'completion');
    assert.equal(await complete.isEnabled(), true);
    assert.equal((await api.get('/discovery/profile/me')).status, 404);

    // Trying again asks again (and the model fails again, said the same way).
    await retry.click();
    await page.waitForFunction(() => document.querySelector('#status-complete .status-error p'));
    await assertFailure(page, control, 'complete', 'The language model did not answer', 'completion, again');
    assert.equal(completions.length, 2);
    assert.equal(new URL(page.url()).pathname, '/discovery.html');
    assert.equal((await api.get('/discovery/conversation/me')).body.status, 'in_progress');
    await context.close();
  });

  test(`${px}: a reflection turn with a failing model says so beside Send, with a retry, and stores nothing`, async () => {
    const email = `fail-reflect-${size.width}@example.org`;
    // The profile is drawn on the service with the offline engine, which shares the database.
    const maker = await person(size, email, MAIL_BASE);
    await profileThroughApi(maker.api);
    await maker.context.close();

    const { context, page, api } = await person(size, email, BROKEN_BASE);
    const turns = requestsTo(page, 'POST', /^\/discovery\/profile\/me\/reflect$/);
    await page.goto(`${BROKEN_BASE}/profile.html`);
    await page.locator('#reflect-form').waitFor();
    await page.fill('#reflect-message', 'What I am best at is explaining hard things simply.');
    const send = page.locator('#reflect-form button[type="submit"]');
    const control = await placeOf(send);
    await send.click();
    const retry = await assertFailure(page, control, 'reflect', 'The coach could not answer just now', 'reflection');
    // The message stays in the field, to send again; nothing was stored.
    assert.equal(await page.inputValue('#reflect-message'), 'What I am best at is explaining hard things simply.');
    assert.deepEqual((await api.get('/discovery/profile/me/reflection')).body, []);
    await retry.click();
    await page.waitForFunction(() => document.querySelector('#status-reflect .status-error p'));
    await assertFailure(page, control, 'reflect', 'The coach could not answer just now', 'reflection, again');
    assert.equal(turns.length, 2);
    assert.deepEqual((await api.get('/discovery/profile/me/reflection')).body, []);
    await context.close();
  });

  test(`${px}: a lost connection is said beside the button; "Try again" then goes through`, async () => {
    const { context, page, api } = await person(size, `offline-${size.width}@example.org`, MAIL_BASE);
    await profileThroughApi(api);
    await page.goto(`${MAIL_BASE}/profile.html`);
    await page.locator('#reflect-form').waitFor();
    const drop = (route) => route.abort('internetdisconnected');
    await page.route('**/discovery/profile/me/reflect', drop);
    await page.fill('#reflect-message', 'My strength is patience, really.');
    const send = page.locator('#reflect-form button[type="submit"]');
    const control = await placeOf(send);
    await send.click();
    const retry = await assertFailure(page, control, 'reflect', 'could not be reached', 'offline');
    await page.unroute('**/discovery/profile/me/reflect', drop);
    await retry.click();
    await assertBeside(page, control, page.locator('#status-reflect [role="status"]', { hasText: /^The coach/ }), 'after the retry');
    assert.equal(await page.locator('#status-reflect .status-error').textContent(), '');
    assert.equal((await api.get('/discovery/profile/me/reflection')).body.length, 2);
    await context.close();
  });
}

test('no console errors', () => {
  assert.deepEqual(problems, []);
});
