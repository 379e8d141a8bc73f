// The phone navigation: one row (the brand and a "Menu" button) that discloses the links.
// A real <button> with aria-expanded and aria-controls; Escape closes it and gives the focus back
// to the button, and so does moving the focus out of the navigation. On wider screens the CSS
// shows the links and hides the button, so this only matters below 40rem. Without this script
// the links simply show, as they do on a desktop.

/** Wires the menu button of `nav.main`, if the page has one. */
export function initMenu() {
  const nav = document.querySelector('nav.main');
  const button = document.getElementById('menu-toggle');
  if (!nav || !button) return;
  const setOpen = (open) => {
    button.setAttribute('aria-expanded', String(open));
    nav.classList.toggle('open', open);
  };
  button.hidden = false;
  nav.classList.add('has-menu');
  setOpen(false);
  button.addEventListener('click', () => setOpen(button.getAttribute('aria-expanded') !== 'true'));
  nav.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && nav.classList.contains('open')) {
      setOpen(false);
      button.focus();
    }
  });
  nav.addEventListener('focusout', (event) => {
    if (event.relatedTarget && !nav.contains(event.relatedTarget)) setOpen(false);
  });
}
