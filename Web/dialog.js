/*
 * Find Our Devices web app: the one modal dialog (#dialog, a <dialog> element: focus stays in
 * it, Esc closes it). Used for the phone set-up shown once, a new share link, and asking before
 * anything that cannot be undone. Content goes in as nodes or text (dom.js).
 */
import { byId, h, replaceChildren } from './dom.js';

let pending = null; // {resolve} of the dialog on screen

function finish(value) {
  const dialog = byId('dialog');
  const p = pending;
  pending = null;
  if (dialog.open) dialog.close();
  if (p) p.resolve(value);
}

let wired = false;
function wire() {
  if (wired) return;
  wired = true;
  const dialog = byId('dialog');
  byId('dialog-close').addEventListener('click', () => finish(null));
  dialog.addEventListener('cancel', (e) => { e.preventDefault(); finish(null); });
  dialog.addEventListener('click', (e) => { if (e.target === dialog) finish(null); }); // the backdrop
}

/**
 * Shows the dialog. `body`: nodes or strings; `actions`: [{label, value, kind: 'primary' |
 * 'secondary' | 'danger'}] as buttons in order. Resolves to the value of the button pressed, or
 * null when closed otherwise. A dialog already open is closed first (resolving null).
 */
export function openDialog({ title, body, actions, name }) {
  wire();
  if (pending) finish(null);
  const dialog = byId('dialog');
  dialog.dataset.name = name || '';
  replaceChildren(byId('dialog-title'), title || '');
  replaceChildren(byId('dialog-body'), ...(body || []));
  replaceChildren(byId('dialog-actions'), ...(actions || []).map((a) => {
    const b = h('button', { type: 'button', className: a.kind || 'secondary', dataset: { value: String(a.value) } }, a.label);
    b.addEventListener('click', () => finish(a.value));
    return b;
  }));
  return new Promise((resolve) => {
    pending = { resolve };
    dialog.showModal();
    const first = dialog.querySelector('.dialog-body input[type=text], .dialog-actions button.primary, .dialog-actions button.danger, .dialog-body button');
    if (first) first.focus();
  });
}

/** Asks before an action that cannot be undone; resolves to true when confirmed. */
export async function confirmAction(title, message, actionLabel) {
  const r = await openDialog({
    title, name: 'confirm', body: [h('p', null, message)],
    actions: [{ label: 'Cancel', value: 'cancel' }, { label: actionLabel, value: 'ok', kind: 'danger' }],
  });
  return r === 'ok';
}

/** Closes the dialog if one is open (sign-out). */
export function closeDialog() { if (pending || byId('dialog').open) finish(null); }

/** Copies `text` to the clipboard; resolves to whether it worked (the button says so). */
export async function copyText(text, button) {
  let ok = false;
  try { await navigator.clipboard.writeText(text); ok = true; } catch (_) { ok = false; }
  if (button) {
    const was = button.dataset.label || button.textContent;
    button.dataset.label = was;
    button.textContent = ok ? 'Copied' : 'Select and copy';
    setTimeout(() => { button.textContent = was; }, 1600);
  }
  return ok;
}

/** Asks for one line of text (a new name); resolves to the trimmed text, or null when cancelled. */
export async function promptText(title, label, value, actionLabel) {
  const input = h('input', { type: 'text', id: 'dialog-input', value: value || '', maxLength: 100 });
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); finish('ok'); } });
  const r = await openDialog({
    title, name: 'prompt', body: [h('label', { htmlFor: 'dialog-input', className: 'stack-label' }, label), input],
    actions: [{ label: 'Cancel', value: 'cancel' }, { label: actionLabel || 'Save', value: 'ok', kind: 'primary' }],
  });
  const text = input.value.trim();
  return r === 'ok' && text ? text : null;
}
