// The page a browser gets for an address that is not here (answered with 404): the layout's
// navigation and a few ways on. Nothing personal is loaded.
import { initPage } from './ui.js';

initPage();
