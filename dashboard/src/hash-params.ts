/**
 * Takes one parameter handed over in the address's fragment (`/#token=...`, `/#violation=...`)
 * and removes it from the address bar, so a token does not end up in bookmarks or the history
 * and a link opens its violation once, not again on every reload.
 */
export function takeHashParam(name: string): string | null {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const value = params.get(name)?.trim();
  if (!value) return null;
  params.delete(name);
  const rest = params.toString();
  const cleanUrl = `${window.location.pathname}${window.location.search}${rest ? `#${rest}` : ''}`;
  window.history.replaceState(window.history.state, '', cleanUrl);
  return value;
}
