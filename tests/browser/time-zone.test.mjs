// The account's time-zone picker, at 1280 and 390 px, in a browser set to Asia/Tokyo: the
// browser's zone comes first, every zone shows its city, country and UTC offset today, and a
// search by country or city narrows the list (an old name such as Africa/Asmera is found by its
// country too); the zone chosen from a search is saved. A search that matches nothing is said
// beside the field, and Save then refuses beside it with nothing sent.
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, WIDTHS, sharedBrowser, watch, devLogin, apiAs, requestsTo } from './helpers.mjs';

const shared = sharedBrowser();

for (const size of WIDTHS) {
  test(`the time-zone picker: the browser's zone first, searchable, with offsets (${size.width} px)`, async () => {
    const problems = [];
    const context = await shared.browser.newContext(size.width < 600
      ? { viewport: size, isMobile: true, hasTouch: true, timezoneId: 'Asia/Tokyo' }
      : { viewport: size, timezoneId: 'Asia/Tokyo' });
    const page = watch(await context.newPage(), problems);
    try {
      await devLogin(page, `zone-picker-${size.width}@example.org`);
      const api = apiAs(context);
      await page.goto(`${BASE}/account.html`);
      const options = page.locator('#time-zone option');
      await page.locator('#time-zone-found', { hasText: 'time zones.' }).waitFor();
      const all = await options.count();
      assert.ok(all > 300, `only ${all} zones`);
      assert.equal(await options.first().getAttribute('value'), 'Asia/Tokyo');
      assert.equal(await options.first().textContent(), 'Tokyo, Japan · UTC+09:00 (Asia/Tokyo) — this browser');
      assert.equal(await page.locator('#time-zone').inputValue(), 'Asia/Tokyo');
      // Every name carries its offset today.
      const labels = await options.allTextContents();
      assert.deepEqual(labels.filter((label) => !/ · UTC[+-]\d\d:\d\d \(/.test(label)), []);

      // By country: every match is in Germany, Berlin among them.
      await page.fill('#time-zone-search', 'germany');
      await page.locator('#time-zone-found', { hasText: 'match “germany”' }).waitFor();
      const german = await options.allTextContents();
      assert.ok(german.length >= 1 && german.length < 5, german.join(' | '));
      assert.deepEqual(german.filter((label) => !label.includes('Germany')), []);
      assert.ok(german.some((label) => label.startsWith('Berlin, Germany · UTC+0')), german.join(' | '));
      // By country, for an old name the browser still lists.
      await page.fill('#time-zone-search', 'eritrea');
      await page.locator('#time-zone-found', { hasText: 'match “eritrea”' }).waitFor();
      assert.ok((await options.allTextContents()).every((label) => label.includes('Eritrea')));
      // By city, and saved.
      await page.fill('#time-zone-search', 'berlin');
      await page.locator('#time-zone-found', { hasText: 'match “berlin”' }).waitFor();
      await page.selectOption('#time-zone', 'Europe/Berlin');
      await page.click('#save-time-zone');
      await page.locator('#status-time-zone .status-line', { hasText: 'Europe/Berlin' }).waitFor();
      assert.equal((await api.get('/api/me/settings')).body.time_zone, 'Europe/Berlin');

      // Nothing matches: said at once, and Save refuses beside the search with nothing sent.
      const sent = requestsTo(page, 'PUT', /^\/api\/me\/settings$/);
      await page.fill('#time-zone-search', 'atlantis');
      await page.locator('#time-zone-found', { hasText: 'No time zone matches “atlantis”' }).waitFor();
      assert.equal(await options.count(), 0);
      await page.click('#save-time-zone');
      await page.locator('#time-zone-search-error', { hasText: 'No time zone matches' }).waitFor();
      assert.deepEqual(sent, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
