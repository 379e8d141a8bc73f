// The question before a destructive action, asked in the page beside its control (never a
// browser dialog): "Yes, …" runs the action, "Keep it" closes the question and puts the keyboard
// back on the control that asked. Used by the account page (key revoke, session end, webhook
// delete); the dashboard's rules and the profile's reopen ask the same way.
import { el } from './ui.js';

/**
 * Wires `trigger` to show a question after `after` (the trigger's row): `id` names the question
 * for screen readers, `yes` is the confirming button's text, `onYes(button)` runs the action.
 * Returns the question's element, for the page to place (it starts hidden).
 */
export function confirmFirst(trigger, { id, question, yes = 'Yes, delete it', keep = 'Keep it', onYes }) {
  const confirm = el('button', { type: 'button', class: 'danger confirm-delete', text: yes });
  const box = el('div', { class: 'card delete-confirm', hidden: true, role: 'group', 'aria-labelledby': id },
    el('p', { id, text: question }),
    el('div', { class: 'actions' }, confirm,
      el('button', { type: 'button', class: 'secondary keep', text: keep,
        onclick: () => { box.hidden = true; trigger.focus(); } })));
  trigger.addEventListener('click', () => {
    box.hidden = false;
    confirm.focus();
    box.scrollIntoView({ block: 'nearest' });
  });
  confirm.addEventListener('click', () => onYes(confirm));
  return box;
}
