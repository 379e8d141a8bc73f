// Nothing lost, and a way back, at desktop (1280 px) and phone (390 px) width: the profile shows
// each of the person's quotes once, folded under its field, and reads in one screen on a desktop;
// "Restore this version" on a past revision brings it back (POST .../revisions/{n}/restore), and
// goes once the profile is affirmed;
// "Revisit my profile" on an affirmed profile asks first, saying what it means, then unlocks it
// (POST .../reopen); a check-in answered "no longer holds" offers the reopen, then the reflection
// with the message box focused and in view.
// Each result shows beside the control that caused it (helpers.mjs `assertBeside`).
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, WIDTHS, sharedBrowser, profileThroughApi, personAt, placeOf, assertBeside, assertInView, shot,
} from './helpers.mjs';

const shared = sharedBrowser();
const problems = [];


/** A new person with a profile, signed in at `size`: `{context, page, api, profile}`. */
async function person(size, name) {
  const signedIn = await personAt(shared.browser, size, `${name}-${size.width}@example.org`, problems);
  return { ...signedIn, profile: await profileThroughApi(signedIn.api) };
}

for (const size of WIDTHS) {
  const px = `${size.width} px`;

  test(`${px}: each quote shows once, folded under its field`, async () => {
    const { context, page, profile } = await person(size, 'quotes');
    await page.goto(`${BASE}/profile.html`);
    await page.locator('#reflect-form').waitFor();
    let folded = 0;
    for (const [field, sources] of Object.entries(profile.sources)) {
      if (!sources.length) continue;
      const fold = page.locator(`#field-${field} details#provenance-${field}`);
      assert.equal(await fold.getAttribute('open'), null, `${field}: folded at first`);
      const quotes = fold.locator('q');
      assert.equal(await quotes.first().isVisible(), false, `${field}: its quotes are hidden until opened`);
      const distinct = new Set(sources.map((s) => s.quote.replace(/\s+/g, ' ').trim().toLowerCase()));
      assert.equal(await quotes.count(), distinct.size, `${field}: each quote once`);
      await fold.locator('summary').click();
      await quotes.first().waitFor();
      folded += 1;
    }
    assert.ok(folded >= 5, `only ${folded} fields have quotes`);
    if (size.width >= 1280) {
      // On a desktop the profile reads in one screen: the last field ends within the first viewport.
      const open = await placeOf(page.locator('#fields'));
      await page.reload();
      await page.locator('#reflect-form').waitFor();
      const closed = await placeOf(page.locator('#fields'));
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      console.log(`# profile at 1280 px: the seven fields end ${Math.round(closed.bottom)} px from the top (${Math.round(open.bottom)} px with every quote open); the page is ${height} px tall`);
      assert.ok(closed.bottom <= size.height, `the fields end at ${closed.bottom} px, below the first ${size.height} px screen`);
    }
    await shot(page, 'profile-folded');
    await context.close();
  });

  test(`${px}: "Restore this version" brings a past revision back, said beside the button`, async () => {
    const { context, page, api, profile } = await person(size, 'restore');
    await page.goto(`${BASE}/profile.html`);
    await page.locator('#reflect-form').waitFor();
    await page.click('#field-mission_summary button[aria-label^="Edit"]');
    await page.fill('#edit-mission_summary', 'Written over, to be restored.');
    await page.click('#field-mission_summary button[type="submit"]');
    await page.locator('#field-mission_summary p.value', { hasText: 'Written over, to be restored.' }).waitFor();

    const first = page.locator('#revisions li[data-number="1"]');
    const restore = first.locator('button.restore', { hasText: 'Restore this version' });
    await restore.waitFor();
    // The newest revision is the profile as it is: nothing to restore there.
    assert.equal(await page.locator('#revisions li').first().locator('button.restore').count(), 0);
    const control = await placeOf(restore);
    await restore.click();
    await assertBeside(page, control, page.locator('#status-restore-1', { hasText: 'Revision 1 is restored' }), 'restored');
    await page.locator('#field-mission_summary p.value', { hasText: profile.mission_summary }).waitFor();
    const now = (await api.get('/discovery/profile/me')).body;
    assert.equal(now.mission_summary, profile.mission_summary);
    assert.deepEqual(now.sources.mission_summary, profile.sources.mission_summary);
    const revisions = (await api.get('/discovery/profile/me/revisions')).body;
    assert.equal(revisions.length, 3);
    assert.equal(revisions[2].origin, 'manual_edit');
    assert.equal(revisions[2].note, 'restored revision 1');
    await page.locator('#revisions li[data-number="3"]', { hasText: 'restored revision 1' }).waitFor();

    // Affirmed without a reload: the restore buttons go with the lock, so none can answer 409.
    assert.ok(await page.locator('#revisions button.restore').count() >= 2);
    await page.click('#affirm-start');
    await page.click('#affirm-yes');
    await page.locator('#locked-note').waitFor();
    await page.locator('#history', { hasText: 'revisit your profile first' }).waitFor();
    assert.equal(await page.locator('#revisions button.restore').count(), 0);
    await context.close();
  });

  test(`${px}: "Revisit my profile" asks first, then unlocks an affirmed profile`, async () => {
    const { context, page, api } = await person(size, 'reopen');
    assert.equal((await api.post('/discovery/profile/me/affirm')).status, 200);
    await page.goto(`${BASE}/profile.html`);
    await page.locator('#locked-note').waitFor();
    await page.click('#profile-reopen-start');
    const question = page.locator('#profile-reopen-confirm');
    await question.waitFor({ state: 'visible' });
    const words = await question.textContent();
    assert.match(words, /unlocked/);
    assert.match(words, /Check-ins pause until you affirm it again/);
    assert.match(words, /Nothing is lost: every revision stays/);
    // "Keep it affirmed" keeps it.
    await question.locator('button', { hasText: 'Keep it affirmed' }).click();
    await question.waitFor({ state: 'hidden' });
    assert.equal((await api.get('/discovery/profile/me')).body.locked, true);

    await page.click('#profile-reopen-start');
    const yes = page.locator('#profile-reopen-yes');
    const control = await placeOf(yes);
    await yes.click();
    await assertBeside(page, control, page.locator('#status-profile-reopen', { hasText: 'Your profile is open again' }), 'reopened');
    const reopened = (await api.get('/discovery/profile/me')).body;
    assert.equal(reopened.locked, false);
    assert.equal(reopened.affirmed_at, null);
    await page.locator('#affirm-start').waitFor();
    await page.locator('#reflect-form').waitFor();
    assert.ok(await page.locator('#fields button[aria-label^="Edit"]').count() >= 7);
    assert.equal(await page.locator('#locked-note').count(), 0);
    await context.close();
  });

  test(`${px}: a check-in answered "no longer holds" offers the reopen, then the reflection`, async () => {
    const { context, page, api } = await person(size, 'revisit');
    assert.equal((await api.post('/discovery/profile/me/affirm')).status, 200);
    assert.equal((await api.post('/coaching/checkins')).status, 201);
    await page.goto(`${BASE}/coaching.html`);
    const checkin = page.locator('#checkin-list li.checkin').first();
    await checkin.locator('.no-longer').waitFor();
    await checkin.locator('textarea').fill('I moved into research this year.');
    const noLonger = checkin.locator('.no-longer');
    let control = await placeOf(noLonger);
    await noLonger.click();
    await assertBeside(page, control, checkin.locator('[id^="status-checkin-"]', { hasText: 'your answer is recorded' }), 'answered');
    const answered = (await api.get('/coaching/checkins')).body.items[0];
    assert.equal(answered.still_valid, false);
    assert.equal(answered.revisit, true);

    await checkin.locator('.revisit', { hasText: 'Your direction has changed' }).waitFor();
    await checkin.locator('button.reopen-start').click();
    await checkin.locator('.reopen-confirm', { hasText: 'Check-ins pause until you affirm it again' }).waitFor();
    const yes = checkin.locator('button.reopen-yes');
    control = await placeOf(yes);
    await yes.click();
    await assertBeside(page, control, checkin.locator('[id$="-reopen"]', { hasText: 'Your profile is open again' }), 'reopened from the check-in');
    assert.equal((await api.get('/discovery/profile/me')).body.locked, false);

    const reflect = checkin.locator('a', { hasText: 'Talk it over with the coach' });
    await Promise.all([page.waitForURL(`${BASE}/profile.html#reflection`), reflect.click()]);
    await page.locator('#reflect-form').waitFor();
    await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'reflect-message');
    assert.ok(await page.locator('#reflect-message').isVisible());
    // The box the keyboard is in is on the screen, not below a long chat.
    await assertInView(page, page.locator('#reflect-message'), 'the message to the coach');
    await context.close();
  });
}

test('no console errors', () => {
  assert.deepEqual(problems, []);
});
