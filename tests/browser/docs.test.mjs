// The API reference at /docs, at 1280 and 390 px: a page of the site's layout rendered by the
// service from its own /openapi.json, with no script. Every operation of the document appears
// with its method and path; a link to a schema jumps to that schema's heading; the contents'
// links jump to the operations; nothing is fetched from another origin; no text is under 12 px
// and the page itself never scrolls sideways (its tables scroll inside their labelled regions).
// axe runs on it in axe.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, WIDTHS, contextAt, sharedBrowser, watch } from './helpers.mjs';

const shared = sharedBrowser();
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];

/** Jumps by the link, then checks the URL names its target and the target is at the top of the viewport. */
async function jumps(page, link) {
  const href = await link.getAttribute('href');
  await link.click();
  await page.waitForURL(`${BASE}/docs${href}`);
  const top = await page.evaluate((id) => document.getElementById(id).getBoundingClientRect().top, href.slice(1));
  assert.ok(top >= -1 && top < 120, `${href}: its target is ${Math.round(top)} px from the top`);
}

for (const size of WIDTHS) {
  test(`the API reference shows every operation of /openapi.json with no script (${size.width} px)`, async () => {
    const problems = [];
    const context = await contextAt(shared.browser, size);
    const page = watch(await context.newPage(), problems);
    const fetched = [];
    page.on('request', (request) => fetched.push(`${request.resourceType()} ${request.url()}`));
    try {
      const response = await page.goto(`${BASE}/docs`);
      assert.equal(response.status(), 200);
      assert.match(response.headers()['content-security-policy'], /^default-src 'self'; script-src 'self'; style-src 'self';/);
      const doc = await (await context.request.get(`${BASE}/openapi.json`)).json();
      const documented = Object.entries(doc.paths)
        .flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
        .sort();
      assert.ok(documented.length >= 45, `only ${documented.length} operations documented`);
      const shown = (await page.locator('section.operation h3').allTextContents())
        .map((text) => text.replace(/\s+/g, ' ').trim()).sort();
      assert.deepEqual(shown, documented);
      const schemas = await page.locator('section.schema h3').allTextContents();
      assert.deepEqual(schemas.map((s) => s.trim()).sort(), Object.keys(doc.components.schemas).sort());

      // No script at all: none in the page, none fetched; nothing from another origin.
      assert.equal(await page.evaluate(() => document.scripts.length), 0);
      assert.deepEqual(fetched.filter((f) => f.startsWith('script ')), []);
      assert.deepEqual(fetched.filter((f) => !f.split(' ')[1].startsWith(BASE)), []);

      // A schema named by an operation links to the schema's own heading; the contents to the operations.
      await jumps(page, page.locator('section.operation td a[href^="#schema-"]').first());
      await jumps(page, page.locator('nav.contents a[href^="#op-"]').nth(5));

      const small = await page.evaluate(() => [...document.querySelectorAll('main *')]
        .filter((e) => [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim()))
        .filter((e) => parseFloat(getComputedStyle(e).fontSize) < 12)
        .map((e) => `${e.tagName} ${e.textContent.slice(0, 30)}`));
      assert.deepEqual(small, [], 'text under 12 px');
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(wide <= 0, `the page scrolls ${wide} px sideways`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
