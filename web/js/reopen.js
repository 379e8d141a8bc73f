// The way back to an affirmed profile: "Revisit my profile" asks first, saying what reopening
// means, then `POST /discovery/profile/me/reopen`. Used by the profile page (on an affirmed
// profile) and by the coaching page (after a check-in answered "no longer holds").
import { api } from './api.js';
import { el, act } from './ui.js';

export const REOPEN_MEANS = 'Revisit your profile? It is unlocked, so you can edit it and talk it over with the coach again. '
  + 'Check-ins pause until you affirm it again. Nothing is lost: every revision stays in its history, and you can restore any of them.';

/**
 * The "Revisit my profile" button and its confirmation, as one element; `prefix` keeps the ids
 * apart when a page shows more than one. `reopened(profile)` runs once the profile is unlocked
 * and answers what to say beside the button (as `act`'s `done`).
 */
export function reopenOffer(prefix, reopened) {
  const questionId = `${prefix}-reopen-q`;
  const start = el('button', { type: 'button', class: 'secondary reopen-start', id: `${prefix}-reopen-start`, text: 'Revisit my profile…' });
  const yes = el('button', { type: 'button', class: 'reopen-yes', id: `${prefix}-reopen-yes`, text: 'Yes, unlock it' });
  const confirmBox = el('div', { class: 'card reopen-confirm', id: `${prefix}-reopen-confirm`, hidden: true, role: 'group', 'aria-labelledby': questionId },
    el('p', { id: questionId, text: REOPEN_MEANS }),
    el('div', { class: 'actions' }, yes,
      el('button', { type: 'button', class: 'secondary', text: 'Keep it affirmed',
        onclick: () => { confirmBox.hidden = true; start.focus(); } })));
  start.addEventListener('click', () => { confirmBox.hidden = false; yes.focus(); });
  yes.addEventListener('click', () => act(yes, {
    key: `${prefix}-reopen`, progress: 'Unlocking your profile…', done: reopened,
  }, () => api.post('/discovery/profile/me/reopen')));
  return el('div', { class: 'reopen' }, el('div', { class: 'actions' }, start), confirmBox);
}
