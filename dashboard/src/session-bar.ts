import { forgetToken } from './auth-token.js';
import { deskMessages as t } from './desk-messages.js';
import { element, valueElement } from './dom.js';
import { currentLocale, type Locale, locales, switchLocale } from './i18n.js';
import { onViewerChange, type Viewer } from './viewer.js';

/**
 * The top bar's right end: the language switch (PT | EN), who is signed in with their role, and
 * "Sair". Signing out forgets the token and reloads: the page starts over at the sign-in dialog,
 * and nothing the old token could see stays on screen or in memory.
 */
export function mountSessionBar(container: HTMLElement): void {
  const languages = element('div', 'language-switch');
  languages.setAttribute('role', 'group');
  languages.setAttribute('aria-label', t.language);
  for (const locale of locales) languages.append(languageButton(locale));

  const who = element('span', 'session-user');
  who.hidden = true;
  const signOut = element('button', 'session-signout', t.signOut);
  signOut.type = 'button';
  signOut.title = t.signOutHint;
  signOut.dataset.action = 'sign-out';
  signOut.hidden = true;
  signOut.addEventListener('click', () => {
    forgetToken();
    window.location.reload();
  });
  container.replaceChildren(languages, who, signOut);

  onViewerChange((viewer) => {
    who.hidden = viewer === null;
    signOut.hidden = viewer === null;
    who.replaceChildren(...(viewer ? describeViewer(viewer) : []));
    if (viewer) who.dataset.role = viewer.role;
    else delete who.dataset.role;
  });
}

function languageButton(locale: Locale): HTMLButtonElement {
  const button = element('button', 'language-switch__option', t.languageNames[locale]);
  button.type = 'button';
  button.lang = locale;
  button.title = t.languageTitles[locale];
  button.dataset.locale = locale;
  const active = locale === currentLocale();
  button.setAttribute('aria-pressed', String(active));
  if (!active) button.addEventListener('click', () => switchLocale(locale));
  return button;
}

function describeViewer(viewer: Viewer): HTMLElement[] {
  const name =
    viewer.kind === 'admin'
      ? element('span', 'session-user__name', t.adminName)
      : valueElement('span', 'session-user__name', viewer.name ?? viewer.id);
  name.title = t.signedInAs;
  return [name, element('span', 'session-user__role', t.roles[viewer.role])];
}
