import { dispatchMessages as t } from './dispatch-messages.js';
import { element } from './dom.js';

/** What the console does on a key; each returns false when it did nothing (so the key is not swallowed). */
export interface DispatchKeyActions {
  newBooking(): void;
  move(step: 1 | -1): boolean;
  assign(index: number): boolean;
  cancel(): boolean;
  confirm(): boolean;
  escape(): boolean;
  enableSound(): void;
}

/** Typing in these does not trigger the one-letter shortcuts. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['button', 'submit', 'checkbox', 'radio'].includes(target.type);
}

/**
 * The console's keyboard map (documented in dashboard/README.md and shown on screen): F2 works
 * everywhere; the one-letter keys, digits and arrows only outside text fields, so typing an
 * address never cancels a booking. Escape leaves a field for the list.
 */
export function installDispatchKeys(actions: DispatchKeyActions): () => void {
  const onKey = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'F2') {
      event.preventDefault();
      actions.newBooking();
      return;
    }
    if (isTyping(event.target)) {
      if (event.key === 'Escape' && event.target instanceof HTMLElement) {
        event.target.blur();
        actions.escape();
      }
      return;
    }
    let handled = false;
    if (event.key === 'ArrowDown' || event.key === 'j') handled = actions.move(1);
    else if (event.key === 'ArrowUp' || event.key === 'k') handled = actions.move(-1);
    else if (/^[1-9]$/.test(event.key)) handled = actions.assign(Number(event.key) - 1);
    else if (event.key === 'c' || event.key === 'C') handled = actions.cancel();
    else if (event.key === 'Enter') handled = actions.confirm();
    else if (event.key === 'Escape') handled = actions.escape();
    else if (event.key === 'n' || event.key === 'N') {
      actions.newBooking();
      handled = true;
    } else if (event.key === 's' || event.key === 'S') {
      actions.enableSound();
      handled = true;
    }
    if (handled) event.preventDefault();
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}

/** The strip of shortcuts at the top of the console. */
export function renderKeyHelp(container: HTMLElement): void {
  const list = element('dl', 'dispatch-keys');
  list.setAttribute('aria-label', t.keysHeading);
  for (const [key, what] of t.keys) {
    const item = element('div', 'dispatch-keys__item');
    const term = element('dt');
    term.append(element('kbd', undefined, key));
    item.append(term, element('dd', undefined, what));
    list.append(item);
  }
  container.append(list);
}
