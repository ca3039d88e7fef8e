import { takeHashParam } from './hash-params.js';

const storageKey = 'vigia.apiToken';

/**
 * Takes a token handed over in the address (`/#token=...`, as printed by the embedded server),
 * keeps it, and removes it from the address bar so it does not end up in bookmarks, screenshots
 * or the browser history. Falls back to the token kept from an earlier visit.
 */
export function takeTokenFromLocation(): string | null {
  const fromHash = takeHashParam('token');
  if (fromHash) {
    saveToken(fromHash);
    return fromHash;
  }
  return loadToken();
}

export function loadToken(): string | null {
  try {
    return window.localStorage.getItem(storageKey);
  } catch {
    // Storage can be disabled by policy or in private modes; the user then types the token each visit.
    return null;
  }
}

export function saveToken(token: string): void {
  try {
    window.localStorage.setItem(storageKey, token);
  } catch {
    // See loadToken: the token still works for this page's lifetime.
  }
}

export function forgetToken(): void {
  try {
    window.localStorage.removeItem(storageKey);
  } catch {
    // Nothing kept, nothing to forget.
  }
}
