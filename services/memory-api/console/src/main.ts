import { render } from 'preact';
import { App } from './app.ts';
import { html } from './ui.ts';

const root = document.getElementById('console');
if (!root) throw new Error('the page has no #console element');
render(html`<${App} />`, root);
