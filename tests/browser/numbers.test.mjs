// One set of numbers, each with its window, and quotes that are quotes (1280 px): known entries
// are seeded (inside both the dashboard's last 14 days and a check-in's 14 calendar days, and one
// older that neither counts), then every figure on the dashboard (the total, the summary, the
// bars, the day-by-day table, the unclassified panel), on the coaching page and in the check-in
// is read: they use the same words (logged, classified, not yet), say their window, and add up.
// The check-in quotes the goals as the affirmed profile holds them (`quoted_goals`) and says so;
// it does not call them the person's own words. It also takes the README's screenshots of the
// dashboard's top (the first screen at 1280 and 390 px).
// Run through ./run.sh, which starts the service and sets BASE_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BASE, SHOTS, sharedBrowser, personAt, profileThroughApi, idle } from './helpers.mjs';

const shared = sharedBrowser();

/** "5 h 15 min" → 315. */
function minutesOf(text) {
  const m = text.trim().match(/^(?:(\d+) h)?\s*(?:(\d+) min)?$/);
  assert.ok(m && (m[1] || m[2]), `no duration in “${text}”`);
  return Number(m[1] || 0) * 60 + Number(m[2] || 0);
}

test('every figure on the dashboard, the coaching page and a check-in agrees and says its window', async () => {
  const problems = [];
  const { context, page, api } = await personAt(shared.browser, { width: 1280, height: 900 }, 'numbers@example.org', problems);
  try {
    const profile = await profileThroughApi(api);
    assert.equal((await api.post('/discovery/profile/me/affirm')).status, 200);
    const now = Date.now();
    const ago = (days) => new Date(now - days * 86400000 - 3600000).toISOString();
    const entries = [
      ['vocation', 120, 0, 'Writing'], ['vocation', 90, 3, 'Writing'], ['mission', 60, 5, 'Mentoring'],
      [null, 45, 2, 'Inbox'], ['vocation', 500, 20, 'Writing'],
    ];
    const items = entries.map(([foundation, minutes, days, label], i) => ({
      external_task_id: `num-${i}`, task_label: label, foundation, minutes, occurred_at: ago(days) }));
    assert.equal((await api.post('/integration/task-mappings/batch', { items })).status, 200);
    const sentence = 'In the last 14 days you logged 5 h 15 min: 4 h 30 min classified, 45 min not yet.';

    await page.goto(`${BASE}/dashboard.html`);
    await page.locator('svg.chart g.row').nth(5).waitFor();
    assert.equal(await page.textContent('#total'), '5 h 15 min logged in the last 14 days: 4 h 30 min classified (85%), 45 min not yet.');
    const summary = await page.textContent('#summary');
    assert.ok(summary.startsWith(`${sentence} Of the classified time, the largest share went to Vocation (78%), then Mission (22%).`), summary);
    assert.match(await page.textContent('#window'), /counts the last 14 days: from .+ to now, in .+ time\.$/);
    // The bars are the classified time, each with its share of it.
    const bars = await page.locator('svg.chart g.row').evaluateAll((rows) => rows.map((row) => [
      row.dataset.foundation, Number(row.dataset.minutes), row.querySelector('text.share').textContent]));
    assert.equal(bars.reduce((sum, [, minutes]) => sum + minutes, 0), 270);
    for (const [foundation, minutes, words] of bars) {
      const [share, duration] = words.split(' · ');
      assert.equal(share, `${Math.round((minutes / 270) * 100)}%`, foundation);
      assert.equal(minutesOf(duration), minutes, foundation);
    }
    // The day-by-day table adds up to the classified time; the Unclassified panel to the rest.
    const daily = await page.locator('#daily-table tbody tr td:last-child').allTextContents();
    assert.equal(daily.reduce((sum, cell) => sum + Number(cell), 0), 270);
    const unclassified = await page.locator('#unmapped li.unmapped-group').evaluateAll((groups) => groups.map((g) => Number(g.dataset.minutes)));
    assert.deepEqual(unclassified, [45]);

    // The check-in observes the same time in the same words, and says its own window.
    const made = await api.post('/coaching/checkins');
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const checkin = made.body;
    assert.equal(checkin.observation, summary);
    // It quotes the goals as the affirmed profile holds them, and calls them that.
    assert.deepEqual(checkin.quoted_goals, [profile.near_term_goal_summary, profile.long_term_goal_summary]);
    assert.match(checkin.message, /the goals your affirmed profile names, as they read there:/);
    assert.doesNotMatch(checkin.message, /own words/);
    for (const goal of checkin.quoted_goals) assert.ok(checkin.message.includes(`“${goal}”`), goal);

    await page.goto(`${BASE}/coaching.html`);
    const item = page.locator(`#checkin-${checkin.id}`);
    await item.waitFor();
    const observation = await item.locator('p.observation').textContent();
    // Its window: the first and the last of its days (the year with the last), then its words.
    const year = new Date(checkin.created_at).getUTCFullYear();
    assert.match(observation, new RegExp(`^\\S.* to .*${year} \\(your last 14 days, up to when this check-in was written\\): `));
    assert.ok(observation.endsWith(summary), observation);
    assert.doesNotMatch(await item.textContent(), /own words/);

    // The dashboard's top, as the README shows it: the first screen at 1280 and at 390 px.
    if (SHOTS) {
      for (const [width, height, name] of [[1280, 900, 'desktop'], [390, 844, 'phone']]) {
        await page.setViewportSize({ width, height });
        await page.goto(`${BASE}/dashboard.html`);
        await page.locator('svg.chart g.row').nth(5).waitFor();
        await idle(page);
        await page.screenshot({ path: path.join(SHOTS, `dashboard-top-${name}.png`) });
      }
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
