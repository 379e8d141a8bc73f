// The page a browser gets for an address that is not here (answered with 404): a few ways on,
// and the navigation of whoever asks. The page comes with the signed-out navigation; a signed-in
// visitor gets the layout's own (Sign out included), kept in a <template> until then.
import { api } from './api.js';
import { initPage } from './ui.js';

async function main() {
  try {
    await api.get('/api/me', { signIn: false });
    const signedIn = document.getElementById('signed-in-menu');
    document.querySelector('nav.main').replaceChildren(signedIn.content.cloneNode(true));
  } catch {
    // Signed out (or the service did not answer): the signed-out navigation stays.
  }
  initPage();
}

main();
