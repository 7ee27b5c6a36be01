/*
 * Find Our Devices web app: the Account panel — who is signed in (and whether they administer
 * the server), the display name, a new password (PUT /v1/me/password: the other sessions end),
 * the notification channels alerts go to (API.md "Notifications"), the server's sign-up policy,
 * signing out and deleting the account.
 */
import { byId, h, replaceChildren } from './dom.js';
import { confirmAction } from './dialog.js';
import { policyText } from './auth.js';
import { expiryText } from './format.js';

export class AccountPanel {
  /** @param hooks {onChanged(), signOut(), onDeleted(), policy() (the sign-up policy or null)} */
  constructor(api, account, hooks) {
    this.api = api;
    this.account = account;
    this.hooks = hooks;
    this.channels = [];
    byId('profile-form').addEventListener('submit', (e) => { e.preventDefault(); this.saveName(); });
    byId('password-form').addEventListener('submit', (e) => { e.preventDefault(); this.changePassword(); });
    byId('channel-form').addEventListener('submit', (e) => { e.preventDefault(); this.addChannel(); });
    byId('account-signout').addEventListener('click', () => hooks.signOut());
    byId('account-delete').addEventListener('click', () => this.deleteAccount());
    byId('invite-code').addEventListener('click', () => this.makeInviteCode());
    account.onChange(() => this.render());
  }

  message(text, isError) {
    const p = byId('account-message');
    p.textContent = text || '';
    p.hidden = !text;
    p.className = isError ? 'error' : 'notice';
  }

  render() {
    const me = this.account.me;
    if (!me) return;
    replaceChildren(byId('account-who'), 'Signed in as ', h('strong', null, me.email), me.isAdmin ? ' ' : null,
      me.isAdmin ? h('span', { className: 'pill' }, 'administrator') : null);
    const name = byId('profile-name');
    if (document.activeElement !== name) name.value = me.displayName;
    byId('password-username').value = me.email;
    const policy = this.hooks.policy();
    byId('server-policy').textContent = policy ? 'This server: ' + policyText(policy) : '';
    byId('admin-section').hidden = !me.isAdmin;
  }

  /** Called when the panel is shown: reads the channels. */
  async show() {
    const me = this.account.me;
    this.message(me && me.mustChangePassword ? 'Your password was set by the administrator: choose a new one below.' : '');
    if (me && me.mustChangePassword) byId('password-current').focus();
    try {
      const r = await this.api.channels();
      this.channels = r && Array.isArray(r.channels) ? r.channels : [];
      this.renderChannels(true);
    } catch (e) {
      this.channels = [];
      this.renderChannels(e.status !== 404 && e.status !== 405, e.status === 404 || e.status === 405 ? null : e.message);
    }
  }

  renderChannels(available, error) {
    byId('channel-form').hidden = !available;
    const list = byId('channels');
    if (!available) { replaceChildren(list, h('li', { className: 'empty' }, 'Notifications are not available on this server.')); return; }
    if (error) { replaceChildren(list, h('li', { className: 'empty' }, error)); return; }
    if (!this.channels.length) { replaceChildren(list, h('li', { className: 'empty' }, 'No channel yet.')); return; }
    replaceChildren(list, ...this.channels.map((c) => {
      const test = h('button', { type: 'button', className: 'plain' }, 'Test');
      test.addEventListener('click', () => this.act(async () => {
        const r = await this.api.testChannel(c.id);
        this.message(r && r.status === 'delivered' ? 'Test sent to ' + c.name + '.' : 'The test failed: ' + ((r && (r.error || (r.httpStatus && 'HTTP ' + r.httpStatus))) || 'no answer'), !(r && r.status === 'delivered'));
      }));
      const toggle = h('button', { type: 'button', className: 'plain' }, c.enabled === false ? 'Enable' : 'Pause');
      toggle.addEventListener('click', () => this.act(async () => { await this.api.updateChannel(c.id, { enabled: c.enabled === false }); await this.show(); }));
      const del = h('button', { type: 'button', className: 'plain' }, 'Delete');
      del.addEventListener('click', async () => {
        if (await confirmAction('Delete ' + c.name + '?', 'Its alerts stop too.', 'Delete')) this.act(async () => { await this.api.deleteChannel(c.id); await this.show(); });
      });
      const state = c.enabled === false ? 'paused' + (c.disabledReason ? ': ' + c.disabledReason : '') : 'on';
      return h('li', { dataset: { channelId: String(c.id) } },
        h('div', { className: 'item-main' }, h('div', { className: 'item-title' }, c.name || c.type), h('div', { className: 'item-meta' }, c.type + ' \u00b7 ' + (c.url || '') + ' \u00b7 ' + state)),
        h('div', { className: 'button-row compact' }, test, toggle, del));
    }));
  }

  async act(fn) {
    try { await fn(); } catch (e) { this.message(e.message, true); }
  }

  async saveName() {
    const displayName = byId('profile-name').value.trim();
    if (!displayName) { this.message('Your name cannot be empty.', true); return; }
    this.act(async () => { await this.api.updateMe({ displayName }); await this.hooks.onChanged(); this.message('Name saved.'); });
  }

  async changePassword() {
    const current = byId('password-current').value, next = byId('password-new').value;
    const length = Array.from(next).length;
    if (!current) { this.message('Enter your current password.', true); return; }
    if (length < 8 || length > 256) { this.message('Choose a new password of 8 to 256 characters.', true); return; }
    this.act(async () => {
      try { await this.api.changePassword(current, next); } catch (e) {
        if (e.status === 404 || e.status === 405) throw new Error('This server cannot change passwords yet: ask its administrator (fod user reset-password).');
        throw e;
      }
      byId('password-current').value = '';
      byId('password-new').value = '';
      this.message('Password changed. Your other sessions have ended.');
      await this.hooks.onChanged();
    });
  }

  async addChannel() {
    const body = { name: byId('channel-name').value.trim(), type: byId('channel-type').value, url: byId('channel-url').value.trim() };
    const token = byId('channel-token').value;
    if (token) body.token = token;
    if (!body.name || !body.url) { this.message('Name the channel and give its URL.', true); return; }
    this.act(async () => {
      const c = await this.api.createChannel(body);
      for (const id of ['channel-name', 'channel-url', 'channel-token']) byId(id).value = '';
      await this.show();
      if (c && c.secret) this.message('Webhook secret (shown once, to check signatures): ' + c.secret);
      else this.message('Channel added. Add alerts to it under Places.');
    });
  }

  async makeInviteCode() {
    this.act(async () => {
      const r = await this.api.makeInviteCode();
      const p = byId('invite-code-text');
      p.textContent = r.inviteCode + ' \u2014 usable once, ' + expiryText(r.expiresAt, Date.now());
      p.hidden = false;
    });
  }

  async deleteAccount() {
    if (!await confirmAction('Delete your account?', 'Your phones, their whole history, your groups and memberships go with it. This cannot be undone.', 'Delete my account')) return;
    this.act(async () => { await this.api.deleteMe(); this.hooks.onDeleted(); });
  }
}
