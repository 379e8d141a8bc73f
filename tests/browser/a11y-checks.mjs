// The accessibility checks run inside a page (page.evaluate), no extra packages:
// - unnamedControls: every input, select, textarea and button has an accessible name;
// - tabWalk: Tab through the page; every stop shows a visible focus indicator that differs from
//   the element's unfocused style, is not clipped away and has 3:1 contrast against what surrounds
//   it; every visible control is reached; any other element Tab reaches (a scrollable region)
//   has a role and a name;
// - lowContrast: every visible text has a WCAG 2.1 contrast ratio of at least 4.5:1 against its
//   effective background (3:1 for large text: at least 24px, or 18.66px bold).
// Each returns a list of problems in words (empty when all is well).

/** Installs `window.__colour(problems)`: reading colours, compositing, WCAG ratios, backgrounds. */
function installColour(page) {
  return page.evaluate(() => {
    window.__colour = (problems) => {
      const parse = (color) => {
        const m = color.match(/^rgba?\(([^)]+)\)$/);
        if (!m) throw new Error(`cannot read the colour “${color}”`);
        const parts = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
        return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
      };
      const over = (top, bottom) => ({
        r: top.r * top.a + bottom.r * (1 - top.a),
        g: top.g * top.a + bottom.g * (1 - top.a),
        b: top.b * top.a + bottom.b * (1 - top.a),
        a: 1,
      });
      const luminance = ({ r, g, b }) => {
        const lin = (v) => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
      };
      const ratio = (a, b) => {
        const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
        return (hi + 0.05) / (lo + 0.05);
      };
      // The background a node's text is drawn on: its own and its ancestors' background colours,
      // composited until one is opaque (the canvas is white).
      const background = (node) => {
        const layers = [];
        for (let up = node; up; up = up.parentElement) {
          const s = getComputedStyle(up);
          if (s.backgroundImage && s.backgroundImage !== 'none' && !['PROGRESS'].includes(up.tagName)) {
            problems.push(`<${up.tagName.toLowerCase()}> has a background image; its text contrast cannot be checked`);
          }
          const c = parse(s.backgroundColor);
          if (c.a > 0) layers.push(c);
          if (c.a >= 1) break;
        }
        let result = { r: 255, g: 255, b: 255, a: 1 };
        for (const layer of layers.reverse()) result = over(layer, result);
        return result;
      };
      return { parse, over, ratio, background };
    };
  });
}

/** Controls without an accessible name, and labels or references that point nowhere. */
export function unnamedControls(page) {
  return page.evaluate(() => {
    const problems = [];
    const text = (node) => (node ? (node.textContent || '').replace(/\s+/g, ' ').trim() : '');
    const describe = (node) => `<${node.tagName.toLowerCase()}${node.id ? ' id=' + node.id : ''}${node.className && typeof node.className === 'string' ? ' class="' + node.className + '"' : ''}> “${text(node).slice(0, 40)}”`;
    const ids = new Map();
    for (const node of document.querySelectorAll('[id]')) ids.set(node.id, (ids.get(node.id) || 0) + 1);
    for (const [id, count] of ids) if (count > 1) problems.push(`id “${id}” is used ${count} times`);
    for (const label of document.querySelectorAll('label[for]')) {
      const target = document.getElementById(label.htmlFor);
      if (!target || !['INPUT', 'SELECT', 'TEXTAREA', 'METER', 'OUTPUT', 'PROGRESS'].includes(target.tagName)) {
        problems.push(`label “${text(label)}” is for “${label.htmlFor}”, which is no form control`);
      }
    }
    const controls = document.querySelectorAll('input:not([type="hidden"]), select, textarea, button');
    for (const node of controls) {
      let name = '';
      const labelledby = node.getAttribute('aria-labelledby');
      if (labelledby) {
        const parts = labelledby.split(/\s+/).map((id) => document.getElementById(id));
        if (parts.some((part) => !part)) problems.push(`${describe(node)}: aria-labelledby names a missing id`);
        name = parts.map(text).join(' ').trim();
      }
      if (!name) name = (node.getAttribute('aria-label') || '').trim();
      if (!name && node.labels) name = [...node.labels].map(text).join(' ').trim();
      if (!name && node.tagName === 'BUTTON') name = text(node);
      if (!name && node.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(node.type)) name = (node.value || '').trim();
      if (!name) problems.push(`${describe(node)} has no accessible name`);
    }
    return problems;
  });
}

/**
 * Presses Tab until focus has gone round the whole page once. Returns `{stops, problems}`:
 * the elements focused, in order, and what was wrong.
 */
export async function tabWalk(page, { maxStops = 250 } = {}) {
  await installColour(page);
  // The unfocused look of every focusable element, taken while nothing is focused.
  const count = await page.evaluate(() => {
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
    const look = (node) => {
      const s = getComputedStyle(node);
      return { outline: `${s.outlineStyle}|${s.outlineWidth}|${s.outlineColor}|${s.outlineOffset}`, shadow: s.boxShadow,
        border: `${s.borderTopColor}|${s.borderTopWidth}`, background: s.backgroundColor };
    };
    // Every element: besides the controls, Chromium lets Tab reach a scrollable box (a wide table
    // on a phone), which then needs its focus ring, a role and a name like any control.
    const all = document.querySelectorAll('body *');
    window.__unfocused = new Map();
    all.forEach((node) => window.__unfocused.set(node, look(node)));
    window.__seen = new Map();
    return all.length;
  });
  const stops = [];
  const problems = [];
  let firstKey = null;
  for (let i = 0; i < Math.max(maxStops, count * 2 + 10); i += 1) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate(() => {
      const node = document.activeElement;
      if (!node || node === document.body || node === document.documentElement) return null;
      if (!window.__seen.has(node)) window.__seen.set(node, window.__seen.size);
      const key = window.__seen.get(node);
      const name = `<${node.tagName.toLowerCase()}${node.id ? '#' + node.id : ''}> “${(node.getAttribute('aria-label') || node.textContent || node.value || '').replace(/\s+/g, ' ').trim().slice(0, 40)}”`;
      const problems = [];
      const s = getComputedStyle(node);
      const alpha = (color) => {
        const m = color.match(/rgba?\(([^)]+)\)/);
        if (!m) return 1;
        const parts = m[1].split(/[\s,/]+/).filter(Boolean);
        return parts.length > 3 ? parseFloat(parts[3]) : 1;
      };
      const outlineWidth = s.outlineStyle === 'none' ? 0 : parseFloat(s.outlineWidth) || 0;
      const hasOutline = outlineWidth > 0 && alpha(s.outlineColor) > 0;
      const hasShadow = s.boxShadow && s.boxShadow !== 'none';
      if (!hasOutline && !hasShadow) problems.push(`${name}: no focus indicator (outline ${s.outlineStyle} ${s.outlineWidth}, box-shadow ${s.boxShadow})`);
      const before = window.__unfocused.get(node);
      if (!before) {
        problems.push(`${name}: appeared only after tabbing began`);
      } else {
        const now = `${s.outlineStyle}|${s.outlineWidth}|${s.outlineColor}|${s.outlineOffset}`;
        if (hasOutline && now === before.outline && !(hasShadow && s.boxShadow !== before.shadow)) {
          problems.push(`${name}: the outline when focused (${now}) is the same as unfocused`);
        } else if (!hasOutline && hasShadow && s.boxShadow === before.shadow) {
          problems.push(`${name}: the box-shadow when focused is the same as unfocused`);
        }
      }
      if (!node.matches('a[href], button, input, select, textarea, summary')) {
        // Not a control by nature (a scrollable region, say): it needs a role and a name.
        const label = (node.getAttribute('aria-label') || '').trim()
          || (node.getAttribute('aria-labelledby') || '').split(/\s+/).map((id) => document.getElementById(id))
            .filter(Boolean).map((n) => n.textContent.trim()).join(' ').trim();
        if (!node.getAttribute('role') || !label) problems.push(`${name}: receives focus but has no role and accessible name`);
      }
      const rect = node.getBoundingClientRect();
      if (rect.width < 1 || rect.height < 1 || !node.checkVisibility({ opacityProperty: true, visibilityProperty: true })) {
        problems.push(`${name}: receives focus but is not visible`);
      } else if (hasOutline) {
        // WCAG 1.4.11: the ring against what it is drawn on (outside the element) at least 3:1.
        const { parse, over, ratio, background } = window.__colour(problems);
        const behind = parseFloat(s.outlineOffset) >= 0 ? background(node.parentElement) : background(node);
        const ringContrast = ratio(over(parse(s.outlineColor), behind), behind);
        if (ringContrast < 3) problems.push(`${name}: its focus ring has a contrast of ${ringContrast.toFixed(2)}:1 against the background (needs 3:1)`);
        // The ring must not be clipped away by an ancestor that hides its overflow.
        const grow = outlineWidth + Math.max(0, parseFloat(s.outlineOffset) || 0);
        const ring = { left: rect.left - grow, top: rect.top - grow, right: rect.right + grow, bottom: rect.bottom + grow };
        for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
          const u = getComputedStyle(up);
          if (u.overflowX === 'visible' && u.overflowY === 'visible') continue;
          const box = up.getBoundingClientRect();
          const cut = ring.left < box.left - 0.5 || ring.top < box.top - 0.5 || ring.right > box.right + 0.5 || ring.bottom > box.bottom + 0.5;
          if (cut) {
            problems.push(`${name}: its focus ring is clipped by <${up.tagName.toLowerCase()} class="${up.className}"> (overflow ${u.overflowX}/${u.overflowY})`);
            break;
          }
        }
      }
      return { key, name, problems };
    });
    if (!stop) continue;
    if (firstKey === null) firstKey = stop.key;
    else if (stop.key === firstKey) break;
    stops.push(stop.name);
    problems.push(...stop.problems);
  }
  // Every visible, enabled control must have been reached.
  const missed = await page.evaluate(() => {
    const out = [];
    for (const node of document.querySelectorAll('a[href], button, input:not([type="hidden"]), select, textarea, summary')) {
      if (node.disabled || node.getAttribute('tabindex') === '-1') continue;
      if (node.closest('[inert]')) continue;
      const rect = node.getBoundingClientRect();
      const offscreenSkip = node.classList.contains('skip');
      if (!offscreenSkip && (rect.width < 1 || rect.height < 1 || !node.checkVisibility({ visibilityProperty: true }))) continue;
      if (!window.__seen.has(node)) out.push(`<${node.tagName.toLowerCase()}${node.id ? '#' + node.id : ''}> “${(node.getAttribute('aria-label') || node.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 40)}” cannot be reached with Tab`);
    }
    return out;
  });
  problems.push(...missed);
  if (firstKey === null) problems.push('Tab never focused anything');
  return { stops, problems };
}

/** Visible text whose contrast against its effective background is below WCAG 2.1 AA. */
export async function lowContrast(page) {
  await installColour(page);
  return page.evaluate(() => {
    const problems = [];
    const { parse, over, ratio, background } = window.__colour(problems);
    const opacity = (node) => {
      let o = 1;
      for (let up = node; up; up = up.parentElement) o *= parseFloat(getComputedStyle(up).opacity);
      return o;
    };
    const check = (node, sample) => {
      if (node.closest('button:disabled, input:disabled, select:disabled, textarea:disabled')) return; // inactive: exempt
      const s = getComputedStyle(node);
      const isSvg = node instanceof SVGElement;
      const fg = parse(isSvg ? s.fill : s.color);
      fg.a *= opacity(node);
      const bg = background(isSvg ? node.closest('svg').parentElement : node);
      const value = ratio(over(fg, bg), bg);
      const size = parseFloat(s.fontSize);
      const weight = parseInt(s.fontWeight, 10);
      const large = size >= 24 || (size >= 18.66 && weight >= 700);
      const needed = large ? 3 : 4.5;
      if (value < needed) {
        problems.push(`“${sample.slice(0, 50)}” in <${node.tagName.toLowerCase()}${node.id ? '#' + node.id : ''} class="${node.getAttribute('class') || ''}">: ${value.toFixed(2)}:1 (${isSvg ? s.fill : s.color} on rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)}), ${size}px ${weight}), needs ${needed}:1`);
      }
    };
    const seen = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let checked = 0;
    for (let textNode = walker.nextNode(); textNode; textNode = walker.nextNode()) {
      const sample = textNode.textContent.replace(/\s+/g, ' ').trim();
      if (!sample) continue;
      const node = textNode.parentElement;
      if (!node || seen.has(node) || ['SCRIPT', 'STYLE', 'OPTION', 'TITLE', 'DESC'].includes(node.tagName.toUpperCase())) continue;
      seen.add(node);
      if (!node.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      const range = document.createRange();
      range.selectNodeContents(textNode);
      if (![...range.getClientRects()].some((r) => r.width > 0 && r.height > 0)) continue;
      check(node, sample);
      checked += 1;
    }
    // The text in form controls (typed values, the chosen option).
    for (const node of document.querySelectorAll('input:not([type="hidden"]):not([type="checkbox"]):not([type="radio"]), select, textarea')) {
      if (!node.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      check(node, node.value || `(${node.tagName.toLowerCase()})`);
      checked += 1;
    }
    if (checked === 0) problems.push('no visible text found to check');
    return problems;
  });
}
