import './token-dialog.css';
import { requireElement } from './dom.js';

/**
 * Asks for an API token (none stored yet, or the API refused the stored one). Resolves with the
 * trimmed token once the user submits a non-empty value; the dialog cannot be dismissed without
 * one because nothing on the page works without it.
 */
export function askForToken(reason: string | null): Promise<string> {
  const dialog = requireElement('#token-dialog', HTMLDialogElement);
  const form = requireElement('#token-form', HTMLFormElement);
  const input = requireElement('#token-input', HTMLInputElement);
  const message = requireElement('#token-message', HTMLElement);

  message.textContent = reason ?? '';
  message.hidden = reason === null;
  input.value = '';

  return new Promise((resolve) => {
    const onCancel = (event: Event) => event.preventDefault();
    const onSubmit = (event: SubmitEvent) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) {
        input.focus();
        return;
      }
      form.removeEventListener('submit', onSubmit);
      dialog.removeEventListener('cancel', onCancel);
      dialog.close();
      resolve(token);
    };
    form.addEventListener('submit', onSubmit);
    dialog.addEventListener('cancel', onCancel);
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
}

/** The dialog's own texts from the page's catalogue (the HTML carries the pt-BR ones for screen readers). */
export function setTokenDialogText(text: { title: string; label: string; hint: string; submit: string }): void {
  requireElement('#token-title', HTMLElement).textContent = text.title;
  requireElement('#token-label', HTMLElement).textContent = text.label;
  requireElement('#token-hint', HTMLElement).textContent = text.hint;
  requireElement('#token-submit', HTMLElement).textContent = text.submit;
}
