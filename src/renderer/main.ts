/**
 * Entry of the status panel page (bundled to dist/renderer/panel.js): mounts the panel
 * (startPanel.ts) into `#app` with the data source this page has.
 */
import { chooseSource, startPanel } from './startPanel.js';

const root = document.getElementById('app');
if (root) startPanel(root, chooseSource(window));
