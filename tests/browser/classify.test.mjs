// Classifying time on the dashboard, in Chromium: entries posted through the API with and without
// a foundation (labels, tags, one outside the window); the coverage beside the total; the
// Unclassified panel, largest first; choosing a foundation for a label adds a `label_equals` rule
// and the bar of that foundation grows by exactly the group's minutes in the window (a label-less
// group gets a `tag` rule on its first tag); nothing chosen and a refusal of the service are
// explained; the rules list moves a rule down and up and deletes one after a confirmation, each
// checked through the API; a rule deleted elsewhere is explained; the empty state; phone width;
// a group that shares a tag or a label prefix with others is offered those rules too, each with
// the groups, entries and time it would classify.
// Run through ./run.sh, which starts the service and sets BASE_URL and SCREENSHOTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, watch, devLogin, idle, apiAs, shot } from './helpers.mjs';

const EMAIL = 'cleo@example.org';
const DAY = 86400000;
/** [external id, label, tags, foundation, minutes, days ago]; each an hour before that day's now. */
const ENTRIES = [
  ['c-1', 'Code review', [], 'vocation', 120, 0],
  ['c-2', 'Garden', [], 'love', 60, 1],
  ['c-3', 'Mentoring', [], 'mission', 30, 2],
  ['u-1', 'Weekly sync', ['project:web'], null, 45, 0],
  ['u-2', 'Weekly sync', ['project:web'], null, 30, 3],
  ['u-3', 'Weekly sync', ['project:web'], null, 100, 20], // outside the 14 days shown
  ['u-4', 'Reading', [], null, 40, 1],
  ['u-5', null, ['deep-work', 'focus'], null, 50, 2],
  ['u-6', null, [], null, 20, 10],
];

let browser;
let context;
let page;
let api;
const problems = [];

/** Minutes of the entries matching `keep` inside the last `days` days. */
function minutesOf(keep, days = 14) {
  return ENTRIES.filter((e) => e[5] < days && keep(e)).reduce((sum, e) => sum + e[4], 0);
}

/** "2 h 5 min", "45 min", "3 h" → minutes. */
function parseHours(text) {
  const m = text.match(/(?:(\d+) h)?\s*(?:(\d+) min)?\s*$/);
  assert.ok(m && (m[1] || m[2]), `no duration in “${text}”`);
  return Number(m[1] || 0) * 60 + Number(m[2] || 0);
}

/** The bar of `foundation` as the page shows it: its minutes (attribute and visible text agree). */
async function bar(foundation) {
  const row = page.locator(`svg.chart g.row[data-foundation="${foundation}"]`);
  const minutes = Number(await row.getAttribute('data-minutes'));
  const shown = parseHours((await row.locator('text.share').textContent()).split('·')[1].trim());
  assert.equal(shown, minutes, `the ${foundation} bar's text and its minutes differ`);
  return minutes;
}

/** The coverage beside the total: the percentage shown, and the unmapped minutes it names. */
async function coverage() {
  const text = await page.locator('#coverage').textContent();
  const m = text.match(/^(.+) classified \((\d+)%\)(?:, (.+) not yet)?\.$/);
  assert.ok(m, `coverage reads “${text}”`);
  // One sentence: what was logged is what is classified and what is not yet.
  const logged = Number(await page.locator('#logged').getAttribute('data-minutes'));
  const unmapped = m[3] ? parseHours(m[3]) : 0;
  assert.equal(parseHours(m[1]) + unmapped, logged, `“${text}” adds up to the time logged`);
  return { percent: Number(m[2]), unmapped };
}

async function groupNames() {
  return page.locator('#unmapped li.unmapped-group .group-name').allTextContents();
}

function group(name) {
  return page.locator('#unmapped li.unmapped-group').filter({ has: page.locator('.group-name', { hasText: new RegExp(`^${name.replace(/[()]/g, '\\$&')}$`) }) });
}

async function rulesFromApi() {
  const listed = await api.get('/integration/rules');
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  return listed.body.map((r) => ({ position: r.position, match: r.match, foundation: r.foundation }));
}

function rule(text) {
  return page.locator('#rules li.rule', { has: page.locator('.rule-match', { hasText: text }) });
}

async function focused() {
  return page.evaluate(() => {
    const node = document.activeElement;
    return node ? { tag: node.tagName.toLowerCase(), id: node.id, label: node.getAttribute('aria-label') } : null;
  });
}

async function openDashboard(days = 14) {
  await page.goto(`${BASE}/dashboard.html?days=${days}`);
  await page.locator('svg.chart g.row').nth(5).waitFor();
  await page.locator('#unmapped li').first().waitFor();
  await page.locator('#rules li').first().waitFor();
  await idle(page);
}

before(async () => {
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = watch(await context.newPage(), problems);
  await devLogin(page, EMAIL);
  api = apiAs(context);
  const now = Date.now();
  for (const [id, label, tags, foundation, minutes, daysAgo] of ENTRIES) {
    const body = { external_task_id: id, task_label: label, tags, minutes,
      occurred_at: new Date(now - daysAgo * DAY - 3600000).toISOString() };
    if (foundation) body.foundation = foundation;
    const created = await api.post('/integration/task-mappings', body);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.foundation, foundation);
    assert.equal(created.body.mapped_by, foundation ? 'client' : null);
  }
});

after(async () => {
  if (browser) await browser.close();
});

test('the dashboard shows the coverage beside the total and the unclassified groups, largest first', async () => {
  await openDashboard();
  const mapped = minutesOf((e) => e[3]);
  const unmapped = minutesOf((e) => !e[3]);
  assert.equal(Number(await page.locator('#logged').getAttribute('data-minutes')), mapped + unmapped);
  assert.match(await page.locator('#logged').textContent(), /^6 h 35 min logged in the last 14 days$/);
  assert.deepEqual(await coverage(), { percent: Math.floor((mapped / (mapped + unmapped)) * 100), unmapped });
  assert.equal(await bar('vocation'), 120);

  // By label and tags, largest first; the label-less ones by their tags, or "(no label)".
  assert.deepEqual(await groupNames(), ['Weekly sync', 'deep-work, focus', 'Reading', '(no label)']);
  const sizes = await page.locator('#unmapped li.unmapped-group').evaluateAll((items) => items.map((li) => Number(li.dataset.minutes)));
  assert.deepEqual(sizes, [75, 50, 40, 20]);
  assert.match(await group('Weekly sync').locator('.group-facts').textContent(), /^1 h 15 min · 2 entries · .+ · tags: project:web$/);
  await group('deep-work, focus').locator('.hint', { hasText: 'Classifies everything tagged “deep-work”.' }).waitFor();
  // Nothing to match a rule on: no control, and it says why.
  assert.equal(await group('(no label)').locator('select, button').count(), 0);
  await group('(no label)').locator('.hint', { hasText: 'No label or tag' }).waitFor();
  // The six foundations, as the service names them, to choose from.
  const titles = (await api.get('/integration/foundations')).body.map((f) => f.title);
  assert.deepEqual(await group('Weekly sync').locator('select option').allTextContents(), ['Choose a foundation', ...titles]);
  await page.locator('#no-rules').waitFor();
  assert.deepEqual(await rulesFromApi(), []);
});

test('choosing a foundation for a label adds its rule; the group leaves; the bar grows by exactly its minutes', async () => {
  const before = { vocation: await bar('vocation'), coverage: await coverage(),
    logged: await page.locator('#logged').textContent() };
  const moved = minutesOf((e) => e[1] === 'Weekly sync');
  assert.equal(moved, 75);

  await group('Weekly sync').locator('select').selectOption({ label: 'Vocation' });
  await group('Weekly sync').locator('button', { hasText: 'Classify' }).click();
  await page.locator('#status-classify', { hasText: 'A new rule classifies “Weekly sync” as Vocation.' }).waitFor();
  await group('Weekly sync').waitFor({ state: 'detached' });

  assert.deepEqual(await groupNames(), ['deep-work, focus', 'Reading', '(no label)']);
  assert.equal(await bar('vocation'), before.vocation + moved);
  const after = await coverage();
  assert.ok(after.percent > before.coverage.percent, `coverage ${before.coverage.percent}% → ${after.percent}%`);
  assert.equal(after.unmapped, before.coverage.unmapped - moved);
  const mapped = minutesOf((e) => e[3] || e[1] === 'Weekly sync');
  assert.equal(after.percent, Math.floor((mapped / minutesOf(() => true)) * 100));
  assert.equal(await page.locator('#logged').textContent(), before.logged, 'the time logged stays the same');

  assert.deepEqual(await rulesFromApi(), [{ position: 1, match: { label_equals: 'Weekly sync' }, foundation: 'vocation' }]);
  await rule('Label is “Weekly sync”').locator('.rule-foundation', { hasText: 'Vocation' }).waitFor();
  // The keyboard goes on to the group that took its place.
  assert.deepEqual(await focused(), { tag: 'select', id: 'classify-0', label: 'Foundation for “deep-work, focus”' });
});

test('a group without a label is classified by its first tag', async () => {
  const love = await bar('love');
  await group('deep-work, focus').locator('select').selectOption('love');
  await group('deep-work, focus').locator('button').click();
  await group('deep-work, focus').waitFor({ state: 'detached' });
  assert.equal(await bar('love'), love + 50);
  assert.deepEqual(await rulesFromApi(), [
    { position: 1, match: { label_equals: 'Weekly sync' }, foundation: 'vocation' },
    { position: 2, match: { tag: 'deep-work' }, foundation: 'love' },
  ]);
  await rule('Tagged “deep-work”').waitFor();
});

test('Classify with no foundation chosen, or refused by the service, says so and changes nothing', async () => {
  await group('Reading').locator('button').click();
  await group('Reading').locator('.field-error[role="alert"]', { hasText: 'Choose a foundation for “Reading” first.' }).waitFor();
  assert.deepEqual(await focused(), { tag: 'select', id: 'classify-0', label: 'Foundation for “Reading”' });

  // The service refusing (here: the 500-rule limit) is shown in the page's error style.
  const refusal = { error: { code: 'too_many_rules', message: 'A person has at most 500 rules; delete one first.' } };
  const handler = (route) => (route.request().method() === 'POST'
    ? route.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify(refusal) })
    : route.continue());
  await page.route('**/integration/rules', handler);
  try {
    await group('Reading').locator('select').selectOption('mission');
    await group('Reading').locator('button').click();
    await group('Reading').locator('#status-classify [role="alert"]', { hasText: refusal.error.message }).waitFor();
  } finally {
    await page.unroute('**/integration/rules', handler);
  }
  assert.equal(await group('Reading').count(), 1);
  assert.equal(await group('Reading').locator('select').isEnabled(), true);
  assert.equal((await rulesFromApi()).length, 2);
});

test('the rules list moves a rule down and up, and deletes one after a confirmation', async () => {
  await openDashboard();
  await shot(page, 'dashboard-classify');
  // Down: the PUT gives it position 2, and the keyboard stays with it (on Move up, at the end).
  await rule('Label is “Weekly sync”').locator('button.move-down').click();
  await page.locator('#status-rule', { hasText: 'Label is “Weekly sync” is now rule 2.' }).waitFor();
  assert.deepEqual(await rulesFromApi(), [
    { position: 1, match: { tag: 'deep-work' }, foundation: 'love' },
    { position: 2, match: { label_equals: 'Weekly sync' }, foundation: 'vocation' },
  ]);
  assert.deepEqual(await page.locator('#rules .rule-match').allTextContents(), ['Tagged “deep-work”', 'Label is “Weekly sync”']);
  assert.equal((await focused()).label, 'Move up: rule 2, Label is “Weekly sync” to Vocation');
  assert.equal(await rule('Label is “Weekly sync”').locator('button.move-down').isDisabled(), true);

  // And back up.
  await rule('Label is “Weekly sync”').locator('button.move-up').click();
  await page.locator('#status-rule', { hasText: 'Label is “Weekly sync” is now rule 1.' }).waitFor();
  assert.deepEqual((await rulesFromApi()).map((r) => r.match), [{ label_equals: 'Weekly sync' }, { tag: 'deep-work' }]);
  assert.equal((await focused()).label, 'Move down: rule 1, Label is “Weekly sync” to Vocation');

  // Delete asks first; "Keep it" keeps it.
  const tagged = rule('Tagged “deep-work”');
  await tagged.locator('button.delete-rule').click();
  await tagged.locator('.delete-confirm').waitFor({ state: 'visible' });
  await tagged.locator('.delete-confirm button', { hasText: 'Keep it' }).click();
  await tagged.locator('.delete-confirm').waitFor({ state: 'hidden' });
  assert.equal((await rulesFromApi()).length, 2);

  const love = await bar('love');
  await tagged.locator('button.delete-rule').click();
  await tagged.locator('button.confirm-delete').click();
  await page.locator('#status-rule', { hasText: 'is deleted' }).waitFor();
  await tagged.waitFor({ state: 'detached' });
  assert.deepEqual(await rulesFromApi(), [{ position: 1, match: { label_equals: 'Weekly sync' }, foundation: 'vocation' }]);
  // Its time is unclassified again: back in the panel, out of the bar.
  await group('deep-work, focus').waitFor();
  assert.equal(await bar('love'), love - 50);
});

test('a rule deleted elsewhere meanwhile: the page says so and shows the rules as they are', async () => {
  const [only] = (await api.get('/integration/rules')).body;
  assert.equal((await api.delete(`/integration/rules/${only.id}`)).status, 204);
  const stale = rule('Label is “Weekly sync”');
  await stale.locator('button.delete-rule').click();
  await stale.locator('button.confirm-delete').click();
  await page.locator('#status-rule [role="alert"]', { hasText: 'not there any more' }).waitFor();
  await page.locator('#no-rules').waitFor();
  await group('Weekly sync').waitFor();
  assert.equal(await bar('vocation'), 120);
});

test('with everything in the window classified, the panel says so and coverage is 100%', async () => {
  await page.click('#periods button[data-days="7"]');
  await page.locator('#logged', { hasText: '7 days' }).waitFor();
  await idle(page);
  assert.deepEqual(await groupNames(), ['Weekly sync', 'deep-work, focus', 'Reading']);
  for (const [name, foundation] of [['Weekly sync', 'vocation'], ['deep-work, focus', 'strength'], ['Reading', 'strength']]) {
    await group(name).locator('select').selectOption(foundation);
    await group(name).locator('button').click();
    await group(name).waitFor({ state: 'detached' });
  }
  await page.locator('#unmapped-empty', { hasText: 'Nothing to classify in the last 7 days' }).waitFor();
  assert.deepEqual(await coverage(), { percent: 100, unmapped: 0 });
  assert.equal(await bar('strength'), minutesOf((e) => e[1] === 'Reading' || e[2][0] === 'deep-work', 7));
  // The keyboard, with no group left, is on the panel's heading.
  assert.equal((await focused()).id, 'unmapped-title');
  assert.equal((await rulesFromApi()).length, 3);
  // The 14 days still hold the label-less, tag-less entry of 10 days ago.
  await page.click('#periods button[data-days="14"]');
  await page.locator('#logged', { hasText: '14 days' }).waitFor();
  await idle(page);
  assert.deepEqual(await groupNames(), ['(no label)']);
});

test('at phone width the dashboard fits and its controls work', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const p = watch(await phone.newPage(), problems);
    await devLogin(p, EMAIL);
    await p.goto(`${BASE}/dashboard.html`);
    await p.locator('#rules li.rule').nth(2).waitFor();
    await idle(p);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the dashboard scrolls sideways by ${overflow}px at 390px`);
    await shot(p, 'dashboard-classify');
    await p.locator('#rules li.rule').nth(2).locator('button.move-up').tap();
    await p.locator('#status-rule', { hasText: 'is now rule 2.' }).waitFor();
    assert.deepEqual((await rulesFromApi()).map((r) => r.position), [1, 2, 3]);
    assert.deepEqual((await rulesFromApi()).map((r) => Object.values(r.match)[0]), ['Weekly sync', 'Reading', 'deep-work']);
  } finally {
    await phone.close();
  }
});

test('Classify offers a shared tag or label prefix, with what each would classify', async () => {
  const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const p = watch(await other.newPage(), problems);
    await devLogin(p, 'radio@example.org');
    const radio = apiAs(other);
    const now = Date.now();
    const items = [['Radio repair: Philips', 25, 0], ['Radio repair: Philips', 20, 1], ['Radio repair: Grundig', 30, 2]]
      .map(([label, minutes, daysAgo], i) => ({ external_task_id: `r-${i}`, task_label: label, tags: ['radio repair'],
        foundation: null, minutes, occurred_at: new Date(now - daysAgo * DAY - 3600000).toISOString() }));
    items.push({ external_task_id: 'r-3', task_label: 'radio repair', tags: [], foundation: null, minutes: 15,
      occurred_at: new Date(now - 3600000).toISOString() });
    items.push({ external_task_id: 'r-4', task_label: 'Reading', tags: [], foundation: null, minutes: 40,
      occurred_at: new Date(now - 3600000).toISOString() });
    assert.equal((await radio.post('/integration/task-mappings/batch', { items })).status, 200);
    await p.goto(`${BASE}/dashboard.html`);
    const philips = p.locator('#unmapped li.unmapped-group', { has: p.locator('.group-name', { hasText: /^Radio repair: Philips$/ }) });
    await philips.waitFor();
    // Its own label, its tag (shared by two groups), its label's prefix (three groups).
    assert.deepEqual(await philips.locator('fieldset.classify-by label').allTextContents(), [
      'Label is “Radio repair: Philips”: 2 entries, 45 min',
      'Tagged “radio repair”: 2 groups, 3 entries, 1 h 15 min',
      'Label contains “Radio repair”: 3 groups, 4 entries, 1 h 30 min',
    ]);
    assert.equal(await philips.locator('fieldset.classify-by input:checked').getAttribute('value'), '0');
    // A label that shares nothing is offered only its own rule.
    const reading = p.locator('#unmapped li.unmapped-group', { has: p.locator('.group-name', { hasText: /^Reading$/ }) });
    assert.equal(await reading.locator('fieldset').count(), 0);

    await philips.locator('fieldset.classify-by label', { hasText: 'Label contains' }).locator('input').check();
    await philips.locator('select').selectOption('strength');
    await philips.locator('button', { hasText: 'Classify' }).click();
    await p.locator('#status-classify', { hasText: 'A new rule classifies every label containing “Radio repair” as Strength.' }).waitFor();
    assert.deepEqual(await p.locator('#unmapped li.unmapped-group .group-name').allTextContents(), ['Reading']);
    assert.equal(await p.locator('svg.chart g.row[data-foundation="strength"]').getAttribute('data-minutes'), '90');
    const rules = (await radio.get('/integration/rules')).body;
    assert.deepEqual(rules.map((r) => [r.match, r.foundation]), [[{ label_contains: 'Radio repair' }, 'strength']]);
  } finally {
    await other.close();
  }
});

test('no console errors on any page', () => {
  assert.deepEqual(problems, []);
});
