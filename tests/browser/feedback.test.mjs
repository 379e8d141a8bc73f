// Feedback where the person is looking, at desktop (1280 px) and phone (390 px) width: every wait
// (saving an answer, completing the discovery, a reflection turn, saving an edit, affirming,
// classifying time, deleting the account) says how it goes beside the control that started it;
// a slow model is called slow there after 10 s; a blank answer or edit is refused beside its field
// and nothing is sent; a counter shows the limit from 80% and a longer paste is kept whole and
// refused, never cut. "Beside" is measured: the message is in the viewport without scrolling, and
// it and its control fit in one viewport height (helpers.mjs `assertBeside`).
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, ANSWERS, WIDTHS, sharedBrowser, profileThroughApi, personAt, placeOf, assertBeside, requestsTo, delay,
} from './helpers.mjs';

const shared = sharedBrowser();
const problems = [];


/** A new person signed in at `size`: `{context, page, api}`. */
function person(size, name) {
  return personAt(shared.browser, size, `${name}-${size.width}@example.org`, problems);
}

for (const size of WIDTHS) {
  const px = `${size.width} px`;

  test(`${px}: a blank answer to steps 1-5 is refused beside the field, and nothing is sent`, async () => {
    const { context, page, api } = await person(size, 'blank');
    const sent = requestsTo(page, 'PUT', /\/discovery\/conversation\/me\/answers\//);
    await page.goto(`${BASE}/discovery.html`);
    await page.locator('#step-label', { hasText: 'Step 1 of 7' }).waitFor();
    const submit = page.locator('#step-form button[type="submit"]');
    for (const blank of ['', '   \n\t  ']) {
      await page.fill('#answer', blank);
      const control = await placeOf(submit);
      await submit.click();
      const refusal = page.locator('#answer-error[role="alert"]', { hasText: 'cannot be left empty' });
      await assertBeside(page, control, refusal, `blank answer ${JSON.stringify(blank)}`);
      assert.equal(await page.locator('#answer').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'answer');
      await page.locator('#step-label', { hasText: 'Step 1 of 7' }).waitFor();
    }
    assert.deepEqual(sent, []);
    assert.deepEqual((await api.get('/discovery/conversation/me')).body.answers, []);

    // Written, it is saved and the next step shows; the refusal is gone.
    await page.fill('#answer', ANSWERS[0]);
    await submit.click();
    await page.locator('#step-label', { hasText: 'Step 2 of 7' }).waitFor();
    assert.equal(sent.length, 1);
    await context.close();
  });

  test(`${px}: the answer's counter shows the limit from 80%; a longer paste is kept whole and refused`, async () => {
    const { context, page, api } = await person(size, 'counter');
    const sent = requestsTo(page, 'PUT', /\/discovery\/conversation\/me\/answers\//);
    await page.goto(`${BASE}/discovery.html`);
    await page.locator('#step-label', { hasText: 'Step 1 of 7' }).waitFor();
    const counter = page.locator('#answer-count');
    await page.fill('#answer', 'a'.repeat(7999));
    assert.equal(await counter.isVisible(), false, 'no counter below 80% of the limit');
    await page.fill('#answer', 'a'.repeat(8500));
    await counter.filter({ hasText: '8,500 of 10,000 characters.' }).waitFor();

    // A paste over the limit: nothing is cut, and the page says so at once.
    const long = 'b'.repeat(10200);
    await page.locator('#answer').focus();
    await page.evaluate((text) => {
      const field = document.getElementById('answer');
      field.value = '';
      field.setRangeText(text);
      field.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
    }, long);
    assert.equal((await page.locator('#answer').inputValue()).length, 10200);
    await counter.filter({ hasText: '10,200 of 10,000 characters: 200 too many' }).waitFor();
    await page.locator('#answer-error', { hasText: 'nothing was cut' }).waitFor();
    const submit = page.locator('#step-form button[type="submit"]');
    const control = await placeOf(submit);
    await submit.click();
    await assertBeside(page, control, page.locator('#answer-error', { hasText: '200 characters over the limit of 10,000' }), 'too long');
    assert.deepEqual(sent, []);
    assert.deepEqual((await api.get('/discovery/conversation/me')).body.answers, []);
    await context.close();
  });

  test(`${px}: steps 6-7 may be empty; completing says "Reading your answers…" beside the button`, async () => {
    const { context, page, api } = await person(size, 'complete');
    assert.equal((await api.post('/discovery/conversation')).status, 201);
    for (let step = 1; step <= 5; step += 1) {
      assert.equal((await api.put(`/discovery/conversation/me/answers/${step}`, { text: ANSWERS[step - 1] })).status, 200);
    }
    await page.goto(`${BASE}/discovery.html`);
    await page.locator('#step-label', { hasText: 'Step 6 of 7' }).waitFor();
    await page.locator('#answer-hint', { hasText: 'no such goal' }).waitFor();
    await page.fill('#answer', '');
    await page.click('#step-form button[type="submit"]');
    await page.locator('#step-label', { hasText: 'Step 7 of 7' }).waitFor();
    await page.locator('#answer-hint', { hasText: 'no such goal' }).waitFor();
    await page.fill('#answer', '   ');
    await page.click('#step-form button[type="submit"]');
    const complete = page.locator('#complete');
    await complete.waitFor();

    await delay(page, '**/discovery/conversation/me/complete', 'POST', 1500);
    const control = await placeOf(complete);
    await complete.click();
    await assertBeside(page, control, page.locator('#status-complete [role="status"]', { hasText: 'Reading your answers…' }), 'completing');
    await page.waitForURL(`${BASE}/profile.html`);
    const profile = (await api.get('/discovery/profile/me')).body;
    assert.equal(profile.near_term_goal_summary, null);
    assert.equal(profile.long_term_goal_summary, null);
    await context.close();
  });

  test(`${px}: the profile's waits and refusals show beside their controls; nothing blank is sent`, async () => {
    const { context, page, api } = await person(size, 'profile');
    const before = await profileThroughApi(api);
    const patches = requestsTo(page, 'PATCH', /^\/discovery\/profile\/me$/);
    const reflections = requestsTo(page, 'POST', /^\/discovery\/profile\/me\/reflect$/);
    await page.goto(`${BASE}/profile.html`);
    await page.locator('#reflect-form').waitFor();

    // A blank edit of one of the five Ikigai and overlap fields: refused beside it, not sent.
    for (const field of ['love_summary', 'overlap_narrative']) {
      await page.click(`#field-${field} button[aria-label^="Edit"]`);
      await page.fill(`#edit-${field}`, '  \n ');
      const save = page.locator(`#field-${field} button[type="submit"]`);
      const control = await placeOf(save);
      await save.click();
      await assertBeside(page, control, page.locator(`#edit-${field}-error[role="alert"]`, { hasText: 'cannot be empty' }), `blank ${field}`);
      assert.equal(await page.evaluate(() => document.activeElement.id), `edit-${field}`);
      await page.locator(`#field-${field} button`, { hasText: 'Cancel' }).click();
    }
    assert.deepEqual(patches, []);
    assert.equal((await api.get('/discovery/profile/me')).body.version, before.version);

    // The service's own 422 is said beside the field too (answered here by a stand-in route).
    await page.click('#field-mission_summary button[aria-label^="Edit"]');
    const refusal = { error: { code: 'validation_failed', message: 'Some fields are not valid.',
      details: [{ field: 'mission_summary', message: 'must not be blank' }] } };
    const refuse = (route) => route.fulfill({ status: 422, contentType: 'application/json', body: JSON.stringify(refusal) });
    await page.route('**/discovery/profile/me', refuse);
    await page.fill('#edit-mission_summary', 'Something the service refuses.');
    const save = page.locator('#field-mission_summary button[type="submit"]');
    let control = await placeOf(save);
    await save.click();
    await assertBeside(page, control, page.locator('#edit-mission_summary-error', { hasText: 'Your mission: must not be blank' }), 'a 422');
    await page.unroute('**/discovery/profile/me', refuse);

    // The counter of a profile field (4,000) from 80%, then a real save, said beside the field.
    await page.fill('#edit-mission_summary', 'm'.repeat(3300));
    await page.locator('#edit-mission_summary-count', { hasText: '3,300 of 4,000 characters.' }).waitFor();
    await page.fill('#edit-mission_summary', 'To help small teams build software that lasts.');
    control = await placeOf(save);
    await save.click();
    await assertBeside(page, control, page.locator('#field-mission_summary #status-field-mission_summary', { hasText: 'Your mission saved.' }), 'saved');

    // A goal may be emptied ("I have no such goal"): it is sent, and stored, as null.
    await page.click('#field-near_term_goal_summary button[aria-label^="Edit"]');
    await page.locator('#edit-near_term_goal_summary-hint', { hasText: 'no such goal' }).waitFor();
    await page.fill('#edit-near_term_goal_summary', ' ');
    await page.click('#field-near_term_goal_summary button[type="submit"]');
    await page.locator('#field-near_term_goal_summary p.value', { hasText: 'Nothing stated.' }).waitFor();
    assert.equal((await api.get('/discovery/profile/me')).body.near_term_goal_summary, null);

    // A blank message to the coach is refused beside it; a real one reports beside Send.
    await page.fill('#reflect-message', '   ');
    const send = page.locator('#reflect-form button[type="submit"]');
    control = await placeOf(send);
    await send.click();
    await assertBeside(page, control, page.locator('#reflect-message-error', { hasText: 'Write a message' }), 'blank message');
    assert.deepEqual(reflections, []);
    await delay(page, '**/discovery/profile/me/reflect', 'POST', 1200);
    await page.fill('#reflect-message', 'What I am best at is staying calm with patients.');
    control = await placeOf(send);
    await send.click();
    await assertBeside(page, control, page.locator('#status-reflect [role="status"]', { hasText: 'The coach is reading…' }), 'reflecting');
    await assertBeside(page, control, page.locator('#status-reflect [role="status"]', { hasText: /^The coach (answered|revised)/ }), 'reflected');
    assert.equal(reflections.length, 1);
    await page.unrouteAll();

    // Affirming: its result shows beside the question that was answered.
    await page.click('#affirm-start');
    const yes = page.locator('#affirm-yes');
    control = await placeOf(yes);
    await yes.click();
    await assertBeside(page, control, page.locator('#status-affirm', { hasText: 'Your profile is affirmed.' }), 'affirmed');
    await context.close();
  });

  test(`${px}: a slow model is called slow beside the button after 10 s`, async () => {
    const { context, page, api } = await person(size, 'slow');
    await profileThroughApi(api);
    await page.goto(`${BASE}/profile.html`);
    await page.locator('#reflect-form').waitFor();
    await delay(page, '**/discovery/profile/me/reflect', 'POST', 11500);
    await page.fill('#reflect-message', 'I would say I love teaching more than coding.');
    const send = page.locator('#reflect-form button[type="submit"]');
    const control = await placeOf(send);
    await send.click();
    const note = page.locator('#status-reflect [role="status"]', { hasText: 'Still working — small models can take a while.' });
    await note.waitFor({ timeout: 11000 });
    await assertBeside(page, control, note, 'slow');
    assert.equal(await send.isDisabled(), true, 'Send waits while the coach reads');
    await page.locator('#status-reflect [role="status"]', { hasText: /^The coach/ }).waitFor({ timeout: 15000 });
    await context.close();
  });

  test(`${px}: classifying time on the dashboard reports beside the group`, async () => {
    const { context, page, api } = await person(size, 'classify');
    for (const [i, label] of ['Standup', 'Planning', 'Reading'].entries()) {
      const created = await api.post('/integration/task-mappings', {
        external_task_id: `fb-${i}`, task_label: label, minutes: 30 + i,
        occurred_at: new Date(Date.now() - 3600000).toISOString(),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    await page.goto(`${BASE}/dashboard.html`);
    const group = page.locator('#unmapped li.unmapped-group', { has: page.locator('.group-name', { hasText: /^Planning$/ }) });
    const button = group.locator('button', { hasText: 'Classify' });
    let control = await placeOf(button);
    await button.click();
    await assertBeside(page, control, group.locator('.field-error', { hasText: 'Choose a foundation for “Planning” first.' }), 'nothing chosen');
    await group.locator('select').selectOption('mission');
    control = await placeOf(button);
    await button.click();
    await assertBeside(page, control, page.locator('#status-classify', { hasText: 'A new rule classifies “Planning” as Mission.' }), 'classified');
    await group.waitFor({ state: 'detached' });
    await context.close();
  });

  test(`${px}: a key's name over its limit is kept whole and refused; deleting the account reports beside its button`, async () => {
    const { context, page, api } = await person(size, 'delete');
    const keys = requestsTo(page, 'POST', /^\/api\/me\/api-keys$/);
    await page.goto(`${BASE}/account.html`);
    await page.locator('#me-email').waitFor();
    await page.fill('#key-name', 'k'.repeat(120));
    assert.equal((await page.inputValue('#key-name')).length, 120, 'nothing is cut');
    await page.locator('#key-name-count', { hasText: '120 of 100 characters: 20 too many' }).waitFor();
    const create = page.locator('#key-form button[type="submit"]');
    const where = await placeOf(create);
    await create.click();
    await assertBeside(page, where, page.locator('#key-name-error', { hasText: '20 characters over the limit of 100' }), 'key name');
    assert.deepEqual(keys, []);

    const button = page.locator('#delete-form button[type="submit"]');
    await page.fill('#delete-confirm', 'someone-else@example.org');
    let control = await placeOf(button);
    await button.click();
    await assertBeside(page, control, page.locator('#delete-confirm-error', { hasText: 'nothing was deleted' }), 'wrong address');
    assert.equal((await api.get('/api/me')).status, 200);
    await delay(page, '**/api/me', 'DELETE', 1200);
    await page.fill('#delete-confirm', `delete-${size.width}@example.org`);
    control = await placeOf(button);
    await button.click();
    await assertBeside(page, control, page.locator('#status-delete-account', { hasText: 'Deleting your account' }), 'deleting');
    await page.waitForURL(/\/login\?deleted=1/);
    await context.close();
  });
}

test('no console errors', () => {
  assert.deepEqual(problems, []);
});
