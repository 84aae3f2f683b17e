import { html, Section } from '../ui.ts';

export function NeedUser({ page }: { page: string }) {
  return html`<${Section} title=${page}>
    <p>Pick a user first, on the <a href="#/users">Users</a> page.</p>
  </${Section}>`;
}
