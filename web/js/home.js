// The home page: a greeting and the next sensible step.
import { api, ApiError } from './api.js';
import { el, fill, initPage, notice, explain } from './ui.js';

initPage();

async function optional(path) {
  try {
    return await api.get(path);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

function card(title, text, href, label) {
  return el('div', { class: 'card' }, el('h2', { text: title }), el('p', { text }),
    el('a', { class: 'button', href, text: label }));
}

async function main() {
  const me = await api.get('/api/me');
  document.getElementById('greeting').textContent = `Welcome, ${me.name || me.email}`;
  const [conversation, profile] = await Promise.all([
    optional('/discovery/conversation/me'),
    optional('/discovery/profile/me'),
  ]);
  const next = document.getElementById('next');
  const cards = [];
  if (!profile) {
    if (conversation && conversation.status === 'in_progress') {
      cards.push(card('Continue your discovery', `You are at step ${conversation.next_step || 7} of 7.`, '/discovery.html', 'Continue'));
    } else {
      cards.push(card('Begin your discovery', 'Seven questions, one at a time, in your own words.', '/discovery.html', 'Begin'));
    }
  } else {
    cards.push(card('Your profile', profile.locked
      ? 'Affirmed: this is who you said you are.'
      : 'Read it, refine it with the coach, and affirm it when it rings true.', '/profile.html', 'Open profile'));
    cards.push(card('Coaching', 'Check-ins that hold your goals up against your days.', '/coaching.html', 'Open coaching'));
  }
  cards.push(card('Where your time goes', 'Time per foundation over the last days and weeks.', '/dashboard.html', 'Open dashboard'));
  fill(next, cards);
}

main().catch((error) => notice(explain(error), 'error'));
