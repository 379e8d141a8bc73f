// Small DOM helpers shared by the pages. Text always goes in through textContent.
import { signOut } from './api.js';

/** `el('p', {class: 'x'}, 'text', child)`: attributes set one by one, strings as text nodes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name === 'text') node.textContent = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Empties `node` and fills it with `children`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** Shows `text` in the page's notice area (role=status or alert). */
export function notice(text, kind = 'info') {
  const area = document.getElementById('notice');
  if (!area) return;
  area.className = kind === 'error' ? 'notice error' : 'notice';
  area.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  area.textContent = text || '';
}

/** The words to show for an API error. */
export function explain(error) {
  if (error && error.message) return error.message;
  return 'Something went wrong. Please try again.';
}

/** "22 Nov 2026, 10:00" in the person's locale. */
export function when(ts) {
  if (!ts) return '';
  const date = new Date(ts);
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const FIELD_TITLES = {
  love_summary: 'What you love',
  strength_summary: 'Your strengths',
  mission_summary: 'Your mission',
  vocation_summary: 'Your vocation',
  overlap_narrative: 'Where they meet',
  near_term_goal_summary: 'Near-term goal (6-12 months)',
  long_term_goal_summary: 'Long-term goal (3-5 years)',
};
export const FIELDS = Object.keys(FIELD_TITLES);

export const FOUNDATION_TITLES = {
  love: 'Love',
  strength: 'Strength',
  mission: 'Mission',
  vocation: 'Vocation',
  short_term: 'Short-term goal',
  long_term: 'Long-term goal',
};

/** Wires the sign-out button (the service marks the current page's link, see web/layout.html). */
export function initPage() {
  const out = document.getElementById('sign-out');
  if (out) out.addEventListener('click', () => signOut());
}

/** Runs `action` with `button` disabled meanwhile; errors go to the notice area. */
export async function busy(button, action) {
  if (button) button.disabled = true;
  try {
    return await action();
  } catch (error) {
    notice(explain(error), 'error');
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}
