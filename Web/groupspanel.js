/*
 * Find Our Devices web app: the Groups panel — invitations to accept (with one of my phones) or
 * decline; my groups, each with my sharing switch; the group on the map with its members and
 * their sharing, invitations by email, and the owner's actions (remove a member, hand over
 * ownership, rename, delete) or a member's (leave); a new group. Names are text.
 */
import { byId, h, replaceChildren } from './dom.js';
import { confirmAction, promptText } from './dialog.js';

/** Groups up to this many members show them without a click. */
const MEMBERS_OPEN = 12;

export class GroupsPanel {
  /**
   * @param hooks {currentGroupId(), members() (the group view's devices: {userId, displayName,
   *   deviceName, shareLocation, located}), ownerId(), openGroup(id), showPanel(name),
   *   onChanged() (refresh the account; resolves after)}
   */
  constructor(api, account, hooks) {
    this.api = api;
    this.account = account;
    this.hooks = hooks;
    this.errorEl = byId('groups-error');
    byId('group-create').addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    account.onChange(() => this.render());
  }

  error(message) { this.errorEl.textContent = message || ''; this.errorEl.hidden = !message; }

  /** A <select> of my phones (`selected` first when given). */
  deviceSelect(id, label, selected) {
    const sel = h('select', { id, attrs: { 'aria-label': label } },
      ...this.account.devices.map((d) => h('option', { value: d.id, selected: d.id === selected }, d.name)));
    sel.disabled = !this.account.devices.length;
    return sel;
  }

  /** Redraws when what it shows changed (a re-render would drop what is being typed). */
  render() {
    const members = this.hooks.members().map((m) => [m.userId, m.displayName, m.deviceName, m.shareLocation, m.located]);
    const key = JSON.stringify([this.account.groups, this.account.invitations, this.account.devices.map((d) => [d.id, d.name]),
      this.hooks.currentGroupId(), this.hooks.ownerId(), members, this.sent]);
    if (key === this.shown) return;
    this.shown = key;
    this.renderInvitations();
    const current = this.hooks.currentGroupId();
    const groups = this.account.groups;
    replaceChildren(byId('my-groups'), ...(groups.length ? groups.map((g) => this.card(g, g.groupId === current))
      : [h('li', { className: 'empty' }, 'You are in no group yet. Create one for your family below, or accept an invitation.')]));
    const sel = byId('group-create-device');
    replaceChildren(sel, ...this.account.devices.map((d) => h('option', { value: d.id }, d.name)));
    sel.disabled = !this.account.devices.length;
    const badge = byId('invite-badge');
    badge.textContent = String(this.account.invitations.length);
    badge.hidden = !this.account.invitations.length;
  }

  renderInvitations() {
    const box = byId('invitations');
    replaceChildren(box, ...this.account.invitations.map((inv) => {
      const sel = this.deviceSelect('accept-device-' + inv.groupId, 'Join with my phone');
      const accept = h('button', { type: 'button', className: 'primary invitation-accept', disabled: !this.account.devices.length }, 'Join');
      const decline = h('button', { type: 'button', className: 'secondary invitation-decline' }, 'Decline');
      accept.addEventListener('click', () => this.act(async () => {
        await this.api.acceptInvitation(inv.groupId, sel.value);
        await this.hooks.onChanged();
        this.hooks.openGroup(inv.groupId);
      }));
      decline.addEventListener('click', () => this.act(async () => { await this.api.declineInvitation(inv.groupId); await this.hooks.onChanged(); }));
      const noPhone = this.account.devices.length ? null
        : h('p', { className: 'hint' }, 'Add a phone first: you join a group with one. ', linkButton('Add a phone', () => this.hooks.showPanel('devices')));
      return h('div', { className: 'invitation', dataset: { groupId: inv.groupId } },
        h('div', null, h('strong', null, inv.senderEmail || 'Someone'), ' invited you to ', h('strong', null, inv.groupName)),
        noPhone, h('label', { className: 'stack-label', htmlFor: sel.id }, 'Join with'), sel,
        h('div', { className: 'button-row' }, accept, decline));
    }));
  }

  card(g, isCurrent) {
    const share = h('input', { type: 'checkbox', checked: g.shareLocation, className: 'sharing-switch' });
    share.addEventListener('change', () => this.act(async () => {
      share.disabled = true;
      try { await this.api.setSharing(g.groupId, share.checked); } catch (e) { share.checked = !share.checked; throw e; } finally { share.disabled = false; }
      await this.hooks.onChanged();
    }));
    const open = isCurrent ? null : h('button', { type: 'button', className: 'secondary group-open' }, 'Show on map');
    if (open) open.addEventListener('click', () => this.hooks.openGroup(g.groupId));
    return h('li', { className: 'group-card' + (isCurrent ? ' current' : ''), dataset: { groupId: g.groupId } },
      h('div', { className: 'card-top' },
        h('div', { className: 'item-main' },
          h('div', { className: 'item-title' }, g.groupName, g.isOwner ? ' ' : null, g.isOwner ? h('span', { className: 'pill' }, 'owner') : null),
          h('div', { className: 'item-meta' }, 'With ' + this.account.deviceName(g.deviceId))),
        open),
      h('label', { className: 'switch' }, share, 'Share my location with this group'),
      isCurrent ? this.details(g) : null);
  }

  /** The group on the map: members, invite, and leave or delete. */
  details(g) {
    const me = this.account.meId;
    const isOwner = g.isOwner;
    const ownerId = this.hooks.ownerId();
    const members = this.hooks.members();
    const rows = members.map((m) => {
      const actions = [];
      if (isOwner && m.userId !== me) {
        const owner = h('button', { type: 'button', className: 'plain member-owner' }, 'Make owner');
        owner.addEventListener('click', () => this.transfer(g, m));
        const remove = h('button', { type: 'button', className: 'plain member-remove' }, 'Remove');
        remove.addEventListener('click', () => this.removeMember(g, m));
        actions.push(owner, remove);
      }
      const state = !m.shareLocation ? 'not sharing' : m.located ? 'sharing' : 'no location yet';
      return h('li', { dataset: { userId: String(m.userId) } },
        h('div', { className: 'item-main' },
          h('div', { className: 'item-title' }, m.displayName || 'Member', m.userId === me ? ' (you)' : '', m.userId === ownerId ? ' \u00b7 owner' : ''),
          h('div', { className: 'item-meta' }, m.deviceName + ' \u00b7 ', h('span', { className: 'member-sharing', dataset: { sharing: String(m.shareLocation) } }, state))),
        actions.length ? h('div', { className: 'button-row compact' }, ...actions) : null);
    });
    // One field per group, kept across redraws (with what is typed in it).
    this.emails = this.emails || new Map();
    if (!this.emails.has(g.groupId)) this.emails.set(g.groupId, h('input', { type: 'email', placeholder: 'Their email', attrs: { 'aria-label': 'Email to invite' }, className: 'invite-email' }));
    const email = this.emails.get(g.groupId);
    const invite = h('form', { className: 'inline-form invite-form', noValidate: true }, email, h('button', { type: 'submit', className: 'primary' }, 'Invite'));
    invite.addEventListener('submit', (e) => {
      e.preventDefault();
      const to = email.value.trim();
      if (!to) return;
      this.act(async () => {
        await this.api.invite(g.groupId, to);
        email.value = '';
        this.error('');
        this.sent = { groupId: g.groupId, text: 'Invitation sent to ' + to + '. They see it under Groups when they sign in (or sign up with that email).' };
        this.render();
      });
    });
    const end = isOwner
      ? h('button', { type: 'button', className: 'danger group-delete' }, 'Delete group')
      : h('button', { type: 'button', className: 'danger group-leave' }, 'Leave group');
    end.addEventListener('click', () => (isOwner ? this.remove(g) : this.leave(g)));
    let rename = null;
    if (isOwner) {
      rename = h('button', { type: 'button', className: 'secondary group-rename' }, 'Rename');
      rename.addEventListener('click', () => this.rename(g));
    }
    const list = h('details', { className: 'subsection members-section', open: rows.length <= MEMBERS_OPEN },
      h('summary', null, 'Members (' + rows.length + ')'), h('ul', { className: 'members' }, ...rows));
    const sent = this.sent && this.sent.groupId === g.groupId ? h('p', { className: 'notice', attrs: { role: 'status' } }, this.sent.text) : null;
    return h('div', { className: 'group-details' }, invite, sent, list, h('div', { className: 'button-row' }, rename, end));
  }

  async act(fn) {
    try { await fn(); } catch (e) { this.error(e.message); }
  }

  async create() {
    const name = byId('group-create-name').value.trim();
    const deviceId = byId('group-create-device').value;
    if (!this.account.devices.length) { this.error('Add a phone first: a group shows its members\u2019 phones.'); return; }
    if (!name) { this.error('Name the group first.'); return; }
    this.act(async () => {
      const g = await this.api.createGroup(name, deviceId);
      byId('group-create-name').value = '';
      this.error('');
      await this.hooks.onChanged();
      this.hooks.openGroup(String(g.id));
    });
  }

  async rename(g) {
    const name = await promptText('Rename ' + g.groupName, 'New name', g.groupName);
    if (!name || name === g.groupName) return;
    this.act(async () => { await this.api.renameGroup(g.groupId, name); await this.hooks.onChanged(); });
  }

  async transfer(g, m) {
    if (!await confirmAction('Make ' + (m.displayName || 'this member') + ' the owner?', 'You stay a member, and can then leave the group.', 'Make owner')) return;
    this.act(async () => { await this.api.transferOwnership(g.groupId, m.userId); await this.hooks.onChanged(); });
  }

  async removeMember(g, m) {
    if (!await confirmAction('Remove ' + (m.displayName || 'this member') + '?', 'They stop seeing the group, and the group stops seeing them.', 'Remove')) return;
    this.act(async () => { await this.api.removeMember(g.groupId, m.userId); await this.hooks.onChanged(); });
  }

  async leave(g) {
    if (!await confirmAction('Leave ' + g.groupName + '?', 'You stop seeing the group, and it stops seeing you.', 'Leave')) return;
    this.act(async () => { await this.api.removeMember(g.groupId, this.account.meId); await this.hooks.onChanged(); });
  }

  async remove(g) {
    if (!await confirmAction('Delete ' + g.groupName + '?', 'Every member stops seeing the others in it. This cannot be undone.', 'Delete group')) return;
    this.act(async () => { await this.api.deleteGroup(g.groupId); await this.hooks.onChanged(); });
  }
}

function linkButton(label, act) {
  const b = h('button', { type: 'button', className: 'link' }, label);
  b.addEventListener('click', act);
  return b;
}
