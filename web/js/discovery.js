// Discovery: the seven prompts one at a time. Each answer is saved as given (PUT) before the
// next prompt shows; coming back resumes at the first unanswered step; the last step leads to
// "Create my profile" (complete), then the profile page.
import { api, ApiError } from './api.js';
import { el, fill, initPage, notice, explain } from './ui.js';

initPage();

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
  const textarea = el('textarea', {
    id: 'answer', name: 'answer', maxlength: '10000', required: !optional,
    'aria-describedby': 'answer-hint',
  });
  textarea.value = answerOf(step);
  const form = el('form', { class: 'card', id: 'step-form' },
    el('p', { class: 'muted', id: 'step-label', text: `Step ${step} of 7` }),
    el('progress', { max: '7', value: String(step - 1), 'aria-labelledby': 'step-label' }),
    el('h2', { id: 'prompt-title', text: prompt.title }),
    prompt.horizon ? el('p', { class: 'badge', text: `Horizon: ${prompt.horizon}` }) : null,
    el('p', { class: 'prompt-text', text: prompt.text }),
    el('label', { for: 'answer', text: 'Your answer' }),
    textarea,
    el('p', { class: 'hint', id: 'answer-hint', text: optional
      ? 'Leave this empty if you have no such goal right now; that is an answer too.'
      : 'In your own words; as long or short as you like.' }),
    el('div', { class: 'actions' },
      step > 1 ? el('button', { type: 'button', class: 'secondary', onclick: () => showStep(step - 1), text: 'Back' }) : null,
      el('button', { type: 'submit', text: step < 7 ? 'Save and continue' : 'Save' })));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      conversation = await api.put(`/discovery/conversation/me/answers/${step}`, { text: textarea.value });
      if (step < 7) showStep(step + 1);
      else showReview();
    } catch (error) {
      notice(explain(error), 'error');
      button.disabled = false;
    }
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
    button.disabled = true;
    notice('Reading your answers… this can take a moment.');
    try {
      await api.post('/discovery/conversation/me/complete');
      location.assign('/profile.html');
    } catch (error) {
      const message = error instanceof ApiError && error.code === 'profile_locked'
        ? 'Your profile is affirmed (locked), so a new discovery cannot replace it.'
        : explain(error);
      notice(message, 'error');
      button.disabled = false;
    }
  });
  fill(stage, el('div', { class: 'card' },
    el('h2', { text: 'All seven answered' }),
    el('p', { text: 'Look them over; change any you like. Then we draw your profile from them.' }),
    list, el('div', { class: 'actions' }, button)));
}

function showCompleted() {
  const again = el('button', { type: 'button', class: 'secondary', text: 'Start a new discovery' });
  again.addEventListener('click', async () => {
    again.disabled = true;
    try {
      conversation = await api.post('/discovery/conversation');
      showStep(conversation.next_step || 1);
    } catch (error) {
      notice(explain(error), 'error');
      again.disabled = false;
    }
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
