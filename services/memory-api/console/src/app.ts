import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Api, ApiError, type Credentials, forgetCredentials, loadCredentials, saveCredentials } from './api.ts';
import { Console, type ConsoleState } from './context.ts';
import { FactsPage } from './pages/facts.ts';
import { ForgetPage } from './pages/forget.ts';
import { MemoryPage } from './pages/memory.ts';
import { SearchPage } from './pages/search.ts';
import { SessionsPage } from './pages/sessions.ts';
import { StatsPage } from './pages/stats.ts';
import { TimelinePage } from './pages/timeline.ts';
import { UsersPage } from './pages/users.ts';
import { ErrorNote, field, html, useAction } from './ui.ts';

const USER = 'hindsight-console:user';

const NAV = [
  ['users', 'Users'],
  ['search', 'Search'],
  ['timeline', 'Timeline'],
  ['facts', 'Facts'],
  ['forget', 'Forget'],
  ['sessions', 'Sessions'],
  ['stats', 'Stats'],
] as const;

/** A 401 already shows as the prompt's message. */
function isUnauthorized(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

function refused(message: string): string {
  return `The API refused the key: ${message}`;
}

interface Identity {
  tenant: string;
  admin: boolean;
}

interface Route {
  page: string;
  arg?: string;
}

function currentRoute(): Route {
  const [page = 'users', arg] = location.hash.replace(/^#\/?/, '').split('/');
  return { page: page || 'users', ...(arg ? { arg: decodeURIComponent(arg) } : {}) };
}

function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function App() {
  const [session, setSession] = useState<{ api: Api; identity: Identity } | undefined>(undefined);
  const [prompt, setPrompt] = useState<string | undefined>(undefined);
  const [checking, setChecking] = useState(loadCredentials() !== undefined);

  const logOut = (message?: string) => {
    forgetCredentials();
    sessionStorage.removeItem(USER);
    setSession(undefined);
    setPrompt(message);
  };

  /** A key is good when `/v1/whoami` answers; every later 401 sends the person back here. */
  const logIn = async (credentials: Credentials) => {
    const api = new Api(credentials, (message) => logOut(refused(message)));
    const identity = await api.get<Identity>('/v1/whoami');
    saveCredentials(credentials);
    setPrompt(undefined);
    setSession({ api, identity });
  };

  useEffect(() => {
    const stored = loadCredentials();
    if (!stored) return;
    logIn(stored)
      .catch((error: unknown) => setPrompt(refused((error as Error).message)))
      .finally(() => setChecking(false));
  }, []);

  if (checking) return html`<p class="muted center">Checking the key…</p>`;
  if (!session) return html`<${KeyPrompt} message=${prompt} onKey=${logIn} />`;
  return html`<${Shell} api=${session.api} identity=${session.identity} onLogOut=${() => logOut()} />`;
}

function KeyPrompt({ message, onKey }: { message?: string; onKey: (c: Credentials) => Promise<void> }) {
  // `autofocus` is not honoured for an element rendered after the page loaded: focus it here.
  const keyField = useRef<HTMLInputElement>(null);
  useEffect(() => keyField.current?.focus(), []);
  const login = useAction(async (form: HTMLFormElement) => {
    const tenant = field(form, 'tenant');
    await onKey({ key: field(form, 'key'), ...(tenant ? { tenant } : {}) });
  });
  return html`<main class="login">
    <h1>hindsight console</h1>
    <form
      onSubmit=${(event: Event) => {
        event.preventDefault();
        void login.act(event.currentTarget as HTMLFormElement);
      }}
    >
      ${message && html`<p class="error" role="alert">${message}</p>`}
      <div class="row">
        <label for="key">API key</label>
        <input id="key" name="key" type="password" required autocomplete="off" ref=${keyField} />
      </div>
      <div class="row">
        <label for="tenant">Tenant <span class="muted">(only with the admin key: the tenant to act for)</span></label>
        <input id="tenant" name="tenant" maxlength="128" autocomplete="off" />
      </div>
      <button type="submit" class="primary" disabled=${login.busy}>Open the console</button>
      <${ErrorNote} error=${isUnauthorized(login.error) ? undefined : login.error} />
      <p class="muted small">
        The key stays in this tab only (sessionStorage) and is sent as <code>Authorization: Bearer</code> to this
        server’s REST API; it is never put in a URL.
      </p>
    </form>
  </main>`;
}

function Shell({ api, identity, onLogOut }: { api: Api; identity: Identity; onLogOut: () => void }) {
  const route = useRoute();
  const [user, setUser] = useState<string | null>(sessionStorage.getItem(USER));
  const main = useRef<HTMLElement>(null);
  const state = useMemo<ConsoleState>(
    () => ({
      api,
      tenant: identity.tenant,
      admin: identity.admin,
      user,
      pickUser: (userId: string) => {
        sessionStorage.setItem(USER, userId);
        setUser(userId);
      },
    }),
    [api, identity, user],
  );
  // A new page takes the focus, so keyboard and screen-reader users start at its content.
  useEffect(() => {
    main.current?.focus({ preventScroll: true });
  }, [route.page, route.arg]);

  return html`<${Console.Provider} value=${state}>
    <a class="skip" href="#main" onClick=${(e: Event) => {
      e.preventDefault();
      main.current?.focus();
    }}>Skip to content</a>
    <header class="top">
      <strong class="brand">hindsight console</strong>
      <span class="who">
        tenant <code data-testid="tenant">${identity.tenant}</code>${identity.admin && html` <span class="badge badge-warn">admin</span>`}
        ${' · '}user <code data-testid="current-user">${user ?? 'none'}</code>
      </span>
      <button type="button" onClick=${onLogOut}>Log out</button>
    </header>
    <nav aria-label="Console pages">
      ${NAV.map(
        ([page, label]) =>
          html`<a href=${`#/${page}`} aria-current=${route.page === page ? 'page' : undefined}>${label}</a>`,
      )}
    </nav>
    <main id="main" ref=${main} tabIndex="-1">
      <${Page} route=${route} />
    </main>
  </${Console.Provider}>`;
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'search':
      return html`<${SearchPage} />`;
    case 'timeline':
      return html`<${TimelinePage} />`;
    case 'facts':
      return html`<${FactsPage} />`;
    case 'memory':
      return route.arg ? html`<${MemoryPage} key=${route.arg} id=${route.arg} />` : html`<${FactsPage} />`;
    case 'forget':
      return html`<${ForgetPage} key=${route.arg ?? ''} memoryId=${route.arg} />`;
    case 'sessions':
      return html`<${SessionsPage} sessionId=${route.arg} />`;
    case 'stats':
      return html`<${StatsPage} />`;
    default:
      return html`<${UsersPage} />`;
  }
}
