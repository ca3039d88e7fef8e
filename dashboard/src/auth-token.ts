import { takeHashParam } from './hash-params.js';

/** The dashboard's key; the driver page keeps its device token under its own (`driverTokenKey`). */
const storageKey = 'vigia.apiToken';
export const driverTokenKey = 'vigia.driverToken';

/**
 * Takes a token handed over in the address (`/#token=...`, as printed by the embedded server),
 * keeps it, and removes it from the address bar so it does not end up in bookmarks, screenshots
 * or the browser history. Falls back to the token kept from an earlier visit.
 */
export function takeTokenFromLocation(key = storageKey): string | null {
  const fromHash = takeHashParam('token');
  if (fromHash) {
    saveToken(fromHash, key);
    return fromHash;
  }
  return loadToken(key);
}

export function loadToken(key = storageKey): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    // Storage can be disabled by policy or in private modes; the user then types the token each visit.
    return null;
  }
}

export function saveToken(token: string, key = storageKey): void {
  try {
    window.localStorage.setItem(key, token);
  } catch {
    // See loadToken: the token still works for this page's lifetime.
  }
}

export function forgetToken(key = storageKey): void {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // Nothing kept, nothing to forget.
  }
}
