// Discovery: the seven prompts one at a time. Each answer is saved as given (PUT) before the
// next prompt shows; coming back resumes at the first unanswered step; the last step leads to
// "Create my profile" (complete), then the profile page. A blank answer to steps 1-5, or one over
// the limit, is refused beside the field before anything is sent; every wait reports beside its
// button (ui.js `act`).
import { api, ApiError } from './api.js';
import { el, fill, initPage, notice, explain, act, countChars, checkText } from './ui.js';

initPage();

/** The most characters an answer may have (docs/api.md). */
const ANSWER_LIMIT = 10000;

const stage = document.getElementById('stage');
let prompts = [];
let conversation = null;

function answerOf(step) {
  const found = conversation.answers.find((a) => a.step === step);
  return found ? found.text : '';
}

function showStep(step) {
  notice('');
  const prompt = prompts.find((p) => p.step === step);
  const optional = step >= 6;
  const textarea = el('textarea', { id: 'answer', name: 'answer', 'aria-describedby': 'answer-hint' });
  textarea.value = answerOf(step);
  const submit = el('button', { type: 'submit', text: step < 7 ? 'Save and continue' : 'Save' });
  const form = el('form', { class: 'card', id: 'step-form', novalidate: true },
    el('p', { class: 'muted', id: 'step-label', text: `Step ${step} of 7` }),
    el('progress', { max: '7', value: String(step - 1), 'aria-labelledby': 'step-label' }),
    el('h2', { id: 'prompt-title', text: prompt.title }),
    prompt.horizon ? el('p', { class: 'badge', text: `Horizon: ${prompt.horizon}` }) : null,
    el('p', { class: 'prompt-text', text: prompt.text }),
    el('label', { for: 'answer', text: 'Your answer' }),
    textarea,
    el('p', { class: 'hint', id: 'answer-hint', text: optional
      ? 'Leave this empty if you have no such goal right now ("I have no such goal"): that is an answer too.'
      : 'In your own words; as long or short as you like, but not empty.' }),
    el('div', { class: 'actions' },
      step > 1 ? el('button', { type: 'button', class: 'secondary', onclick: () => showStep(step - 1), text: 'Back' }) : null,
      submit));
  countChars(textarea, ANSWER_LIMIT);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const blank = optional ? null : 'Please write an answer: this step cannot be left empty.';
    if (!checkText(textarea, { limit: ANSWER_LIMIT, blank })) return;
    const saved = await act(submit, { key: 'answer', progress: 'Saving your answer…' },
      () => api.put(`/discovery/conversation/me/answers/${step}`, { text: textarea.value }));
    if (!saved) return;
    conversation = saved;
    if (step < 7) showStep(step + 1);
    else showReview();
  });
  fill(stage, form);
  textarea.focus();
}

function showReview() {
  notice('');
  const list = el('ol', null, prompts.map((p) => el('li', null,
    el('strong', { text: p.title }), el('br'),
    el('span', { class: 'muted', text: answerOf(p.step) || '(no goal stated)' }),
    ' ', el('button', { type: 'button', class: 'link', onclick: () => showStep(p.step), text: 'Change' }))));
  const button = el('button', { type: 'button', id: 'complete', text: 'Create my profile' });
  button.addEventListener('click', async () => {
    const profile = await act(button, {
      key: 'complete', progress: 'Reading your answers… this can take a moment.', slow: 'model',
      done: () => 'Your profile is ready; opening it…',
      failure: (error) => (error instanceof ApiError && error.code === 'profile_locked'
        ? 'Your profile is affirmed (locked), so a new discovery cannot replace it. To revisit it, choose “Revisit my profile” on your profile page first.'
        : null),
    }, () => api.post('/discovery/conversation/me/complete'));
    if (profile) location.assign('/profile.html');
  });
  fill(stage, el('div', { class: 'card' },
    el('h2', { text: 'All seven answered' }),
    el('p', { text: 'Look them over; change any you like. Then we draw your profile from them.' }),
    list, el('div', { class: 'actions' }, button)));
}

function showCompleted() {
  const again = el('button', { type: 'button', class: 'secondary', text: 'Start a new discovery' });
  again.addEventListener('click', async () => {
    const started = await act(again, {
      key: 'again', progress: 'Starting a new discovery…',
      failure: (error) => (error instanceof ApiError && error.code === 'profile_locked'
        ? 'Your profile is affirmed (locked). To revisit it, choose “Revisit my profile” on your profile page first.'
        : null),
    }, () => api.post('/discovery/conversation'));
    if (!started) return;
    conversation = started;
    showStep(conversation.next_step || 1);
  });
  fill(stage, el('div', { class: 'card' },
    el('h2', { text: 'Your discovery is complete' }),
    el('p', { text: 'Your profile was drawn from your answers.' }),
    el('div', { class: 'actions' }, el('a', { class: 'button', href: '/profile.html', text: 'See your profile' }), again)));
}

async function main() {
  prompts = await api.get('/discovery/prompts');
  try {
    conversation = await api.get('/discovery/conversation/me');
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    conversation = await api.post('/discovery/conversation');
  }
  if (conversation.status === 'completed') showCompleted();
  else if (conversation.next_step) showStep(conversation.next_step);
  else showReview();
}

main().catch((error) => notice(explain(error), 'error'));
