/**
 * A server card's sign-in control: "Sign in" on a server waiting for its user (`needs-auth`),
 * "Sign out" on a signed-in one, hidden on servers without OAuth. The click goes to the
 * runtime, which opens the system browser; what the page shows never carries a token.
 */
import type { ServerStatus } from '../shared/status.js';
import { el, setHidden, setText } from './dom.js';

export type AuthAction = 'sign-in' | 'sign-out';

const TOKENS_IN: Record<NonNullable<ServerStatus['tokenStore']>, string> = {
  keyring: 'the OS keychain',
  app: "the app's secret store",
  file: 'a file readable only by you (no secret store here)',
};

export interface AuthControl {
  readonly button: HTMLButtonElement;
  readonly error: HTMLParagraphElement;
  update(server: ServerStatus): void;
  /** A request is in flight (true) or finished (false, with its error if it failed). */
  setPending(pending: boolean, error?: string): void;
}

/** The action a server's state calls for, if any. */
export function authActionOf(s: ServerStatus): AuthAction | 'busy' | undefined {
  if (s.auth === 'signing-in') return 'busy';
  if (s.state === 'needs-auth' || s.auth === 'needs-auth') return 'sign-in';
  if (s.auth === 'signed-in') return 'sign-out';
  return undefined;
}

export function createAuthControl(id: string, onAuth: (id: string, action: AuthAction) => void): AuthControl {
  const button = el('button', 'auth', 'Sign in', { type: 'button' }) as HTMLButtonElement;
  const error = el('p', 'auth-error', undefined, { role: 'alert' }) as HTMLParagraphElement;
  error.hidden = true;
  button.hidden = true;
  let action: AuthAction | 'busy' | undefined;
  let pending = false;
  const refresh = () => {
    setHidden(button, action === undefined);
    const busy = pending || action === 'busy';
    button.setAttribute('aria-disabled', String(busy));
    const label = busy ? 'Signing in\u2026' : action === 'sign-out' ? 'Sign out' : 'Sign in';
    setText(button, label);
    button.setAttribute('aria-label', `${label} ${id}`);
  };
  button.addEventListener('click', () => {
    if (button.getAttribute('aria-disabled') === 'true' || (action !== 'sign-in' && action !== 'sign-out')) return;
    onAuth(id, action);
  });
  return {
    button,
    error,
    update(server) {
      action = authActionOf(server);
      const where = server.tokenStore ? TOKENS_IN[server.tokenStore] : undefined;
      if (where) button.title = `Its sign-in tokens are kept in ${where}`;
      else button.removeAttribute('title');
      refresh();
    },
    setPending(isPending, message) {
      pending = isPending;
      setHidden(error, !message);
      setText(error, message ? `Sign-in failed: ${message}` : '');
      refresh();
    },
  };
}
