// The API documentation at /docs: Swagger UI served by the service itself renders every
// operation of /openapi.json under the page's Content-Security-Policy, with no console error
// and nothing fetched from another origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, watch } from './helpers.mjs';

test('the API documentation renders every operation from files served here', async () => {
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const problems = [];
    watch(page, problems);
    const elsewhere = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(BASE) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    await page.goto(`${BASE}/docs`);
    await page.waitForSelector('.opblock');
    const documented = await page.evaluate(async () => {
      const doc = await (await fetch('/openapi.json')).json();
      return Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    });
    assert.ok(documented >= 45, `only ${documented} operations documented`);
    assert.equal(await page.locator('.opblock').count(), documented);
    assert.deepEqual(elsewhere, [], 'requests to other origins');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
