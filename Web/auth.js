/*
 * Find Our Devices web app: the signed-out page — sign in, create an account, and the server's
 * sign-up policy (GET /v1/server: "open" | "invite" | "closed"; API.md "Accounts,
 * administration and the web app") said in words, the "Create account" tab closed when the
 * server takes no accounts. The submit buttons stay disabled in the HTML until this runs, so the
 * forms can never be submitted natively (the CSP's form-action 'none' would refuse it anyway).
 */
import { byId } from './dom.js';
import { retryAfterSeconds } from './api.js';
import { showSigninView } from './ui.js';

const POLICY_TEXT = {
  open: 'Anyone can create an account on this server.',
  invite: 'New accounts by invitation: sign up with the email address a group invited, or with an invite code from the administrator.',
  closed: 'This server does not take new accounts. Ask its administrator for one.',
};

/** Shows `message` in `el` (an .error paragraph); empty hides it. */
function say(el, message) {
  el.textContent = message || '';
  el.hidden = !message;
}

/** A form that submits once at a time, with a 429 countdown (Retry-After) on its button. */
class AuthForm {
  constructor(formId, errorId, submit) {
    this.form = byId(formId);
    this.errorEl = byId(errorId);
    this.button = this.form.querySelector('button[type=submit]');
    this.submit = submit;
    this.retryTimer = 0;
    this.form.addEventListener('submit', (e) => { e.preventDefault(); this.run(); });
    this.button.disabled = false;
  }

  error(message) { say(this.errorEl, message); }

  async run() {
    if (this.button.disabled) return;
    this.button.disabled = true;
    this.error('');
    try {
      const problem = await this.submit();
      this.button.disabled = false;
      if (problem) this.error(problem);
    } catch (e) {
      if (e.status === 429) { this.countdown(e.message, retryAfterSeconds(e.retryAfter)); return; }
      this.button.disabled = false;
      this.error(this.explain(e));
    }
  }

  explain(e) { return e.message; }

  /** 429: keeps the button disabled and counts Retry-After down. */
  countdown(message, secs) {
    clearInterval(this.retryTimer);
    const base = message || 'Too many attempts.';
    if (!secs) { this.button.disabled = false; this.error(base + ' Please wait a moment and try again.'); return; }
    const until = Date.now() + secs * 1000;
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left > 0) { this.error(base + ' Try again in ' + left + ' s.'); return; }
      clearInterval(this.retryTimer);
      this.button.disabled = false;
      this.error(base + ' You can try again now.');
    };
    this.button.disabled = true;
    tick();
    this.retryTimer = setInterval(tick, 1000);
  }
}

export class AuthView {
  /**
   * @param api the ApiClient (for GET /v1/server)
   * @param actions {signIn(email, password), signUp({email, password, displayName, inviteCode?})}:
   *   each resolves once signed in, or rejects with an ApiError to show
   */
  constructor(api, actions) {
    this.api = api;
    this.policy = null;
    this.email = byId('email');
    this.password = byId('password');
    this.signInForm = new AuthForm('signin', 'signin-error', async () => {
      const email = this.email.value.trim(), password = this.password.value;
      if (!email || !password) return 'Enter your email and password.';
      await actions.signIn(email, password);
      this.password.value = '';
      return null;
    });
    this.signInForm.explain = (e) => (e.status === 401 ? (e.message || 'Wrong email or password.') : e.message);
    this.signUpForm = new AuthForm('signup', 'signup-error', async () => {
      const displayName = byId('signup-name').value.trim(), email = byId('signup-email').value.trim();
      const password = byId('signup-password').value, inviteCode = byId('signup-invite').value.trim();
      if (!displayName || !email) return 'Enter your name and email.';
      const length = Array.from(password).length;
      if (length < 8 || length > 256) return 'Choose a password of 8 to 256 characters.';
      const body = { email, password, displayName };
      if (inviteCode) body.inviteCode = inviteCode;
      await actions.signUp(body);
      byId('signup-password').value = '';
      return null;
    });
    this.signUpForm.explain = (e) => (e.code === 'signup_closed' ? (e.message || POLICY_TEXT.invite) : e.message);
    byId('tab-signin').addEventListener('click', () => this.tab('signin'));
    byId('tab-signup').addEventListener('click', () => this.tab('signup'));
  }

  /** Shows the sign-in page on `which` tab ('signin' | 'signup'), with an optional message. */
  show(message, email, which) {
    showSigninView();
    this.tab(which || 'signin');
    this.signInForm.error(message || '');
    if (email && !this.email.value) this.email.value = email;
    if ((which || 'signin') === 'signin') (this.email.value ? this.password : this.email).focus();
    this.loadPolicy();
  }

  tab(which) {
    if (which === 'signup' && byId('tab-signup').disabled) which = 'signin';
    for (const name of ['signin', 'signup']) {
      const on = name === which;
      byId('tab-' + name).setAttribute('aria-selected', on ? 'true' : 'false');
      byId(name).hidden = !on;
    }
    if (which === 'signup') byId('signup-name').focus();
  }

  /** Reads the sign-up policy and says it; a server without /v1/server says nothing. */
  async loadPolicy() {
    let server = null;
    try { server = await this.api.server(); } catch (_) { server = null; }
    const policy = server && typeof server.signup === 'string' ? server.signup : null;
    this.policy = policy;
    document.body.dataset.signup = policy || 'unknown';
    byId('signup-policy').textContent = policy ? POLICY_TEXT[policy] || '' : '';
    byId('signup-invite-row').hidden = policy !== 'invite';
    const closed = policy === 'closed';
    byId('tab-signup').disabled = closed;
    byId('tab-signup').title = closed ? POLICY_TEXT.closed : '';
    if (closed && !byId('signup').hidden) this.tab('signin');
  }
}

/** The sign-up policy in words, for the account panel. */
export function policyText(policy) { return POLICY_TEXT[policy] || ''; }
