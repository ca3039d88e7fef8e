/**
 * Creates an element whose text is set through `textContent`: vehicle and operator data come from
 * devices and integrators, so it never goes through `innerHTML`.
 */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * An element showing data rather than interface text (a plate, a name from the registry, a
 * street): marked `data-value`, so the catalogue test knows it is not meant to be translated.
 */
export function valueElement<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string | undefined,
  text: string,
): HTMLElementTagNameMap[K] {
  const node = element(tag, className, text);
  node.dataset.value = '';
  return node;
}

/**
 * Sets a node's text only when it changed: assigning `textContent` replaces the text node even
 * when the text is the same, and the browser then restyles and lays out around it in the next frame.
 */
export function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

export function requireElement<T extends HTMLElement>(selector: string, type: new () => T): T {
  const node = document.querySelector(selector);
  if (!(node instanceof type)) throw new Error(`The page has no ${selector}`);
  return node;
}

/** Hands a fetched file (fetched because it needs the Authorization header) to the browser as a download. */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // Browsers read the Blob after click() returns, at their own pace: free it once that is surely done.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
