import type { UserList } from '@hindsight/memory-model';
import { useState } from 'preact/hooks';
import { go, useConsole } from '../context.ts';
import { field, html, Loading, Section, useLoad, When } from '../ui.ts';

const INACTIVE = ['superseded', 'archived', 'quarantined'] as const;

export function UsersPage() {
  const { api, user, pickUser } = useConsole();
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const users = useLoad(() => api.get<UserList>('/v1/users', { limit: 100, cursor }), [cursor]);

  const open = (event: Event) => {
    event.preventDefault();
    const id = field(event.currentTarget as HTMLFormElement, 'user');
    if (id) {
      pickUser(id);
      go('/search');
    }
  };

  return html`<${Section}
    title="Users"
    actions=${html`<button type="button" onClick=${users.reload}>Refresh</button>`}
  >
    <p class="muted">
      The tenant’s users with long-term memories, most recently active first. Active memories per layer
      (working = turns in open sessions); superseded, archived and quarantined ones are counted apart.
    </p>
    <${Loading} what=${users} />
    ${
      users.data &&
      html`<div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col" class="num">Working</th>
            <th scope="col" class="num">Episodic</th>
            <th scope="col" class="num">Semantic</th>
            <th scope="col" class="num">Inactive</th>
            <th scope="col" class="num">Open sessions</th>
            <th scope="col">Last activity</th>
          </tr>
        </thead>
        <tbody>
          ${
            users.data.items.length === 0 &&
            html`<tr><td colspan="7" class="muted">No user of this tenant has memories yet.</td></tr>`
          }
          ${users.data.items.map((u) => {
            const inactive = Object.values(u.statuses).reduce(
              (sum, byStatus) => sum + INACTIVE.reduce((n, status) => n + (byStatus[status] ?? 0), 0),
              0,
            );
            return html`<tr class=${u.user_id === user ? 'current' : ''} data-user=${u.user_id}>
              <th scope="row">
                <button type="button" class="link" onClick=${() => pickUser(u.user_id)} aria-pressed=${u.user_id === user}>
                  ${u.user_id}
                </button>
              </th>
              <td class="num">${u.layers.working}</td>
              <td class="num">${u.layers.episodic}</td>
              <td class="num">${u.layers.semantic}</td>
              <td class="num">${inactive}</td>
              <td class="num">${u.open_sessions}</td>
              <td><${When} iso=${u.last_activity_at} /></td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
    <div class="pager">
      ${cursor !== undefined && html`<button type="button" onClick=${() => setCursor(undefined)}>First page</button>`}
      ${
        users.data.next_cursor &&
        html`<button type="button" onClick=${() => setCursor(users.data?.next_cursor ?? undefined)}>Next page</button>`
      }
    </div>`
    }
    <form class="inline" onSubmit=${open}>
      <label for="open-user">Open a user by id <span class="muted">(also one with only working memory)</span></label>
      <input id="open-user" name="user" required maxlength="128" />
      <button type="submit">Open</button>
    </form>
  </${Section}>`;
}
