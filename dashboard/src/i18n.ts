/**
 * The dashboard's languages. Brazilian Portuguese is the default (the users are Brazilian civil
 * servants, dispatchers and agents); English is offered beside it. Every string a user reads comes
 * from a catalogue defined with `defineMessages`, one per feature, next to the feature's code
 * (`<feature>-messages.ts`), Portuguese and English side by side.
 *
 * The language is chosen once per page load: switching stores the choice and reloads, so no
 * component has to re-render itself on a language change.
 *
 * A third, test-only value `qps` (a pseudo-locale, BCP 47's private-use range) shows the Portuguese
 * text wrapped in ⟦…⟧: the catalogue test reads every text on screen and proves each came through a
 * catalogue (wrapped) or is marked as data (`data-value`). It is never offered in the switch.
 */

export const locales = ['pt-BR', 'en'] as const;
export type Locale = (typeof locales)[number];
/** The pseudo-locale of the catalogue test. */
export const pseudoLocale = 'qps';
type ActiveLocale = Locale | typeof pseudoLocale;

const storageKey = 'vigia.locale';

function isActiveLocale(value: string | null | undefined): value is ActiveLocale {
  return value === pseudoLocale || (locales as readonly string[]).includes(value ?? '');
}

function storedLocale(): ActiveLocale {
  try {
    const stored = globalThis.localStorage?.getItem(storageKey);
    return isActiveLocale(stored) ? stored : 'pt-BR';
  } catch {
    // Storage can be refused (private windows, strict settings): the default still works.
    return 'pt-BR';
  }
}

let current: ActiveLocale = storedLocale();

/** The catalogue language in use (the pseudo-locale reads as Portuguese). */
export function currentLocale(): Locale {
  return current === pseudoLocale ? 'pt-BR' : current;
}

/** The locale `Intl` formats dates, numbers and money in: the catalogue's language. */
export function intlLocale(): Locale {
  return currentLocale();
}

/** Stores the choice and reloads the page in it. */
export function switchLocale(locale: Locale): void {
  try {
    globalThis.localStorage?.setItem(storageKey, locale);
  } catch {
    // Without storage the switch lasts for this page only.
  }
  current = locale;
  globalThis.location?.reload();
}

/** `<html lang>` follows the language shown, so screen readers and hyphenation read it right. */
export function applyDocumentLanguage(): void {
  if (typeof document !== 'undefined') document.documentElement.lang = currentLocale();
}

export const pseudoOpen = '⟦';
export const pseudoClose = '⟧';

/** Wraps every string of a catalogue, and every string a catalogue function returns, in the markers. */
function pseudo<T>(value: T): T {
  if (typeof value === 'string') return `${pseudoOpen}${value}${pseudoClose}` as T;
  if (typeof value === 'function') {
    const wrapped = (...args: unknown[]) => pseudo((value as (...a: unknown[]) => unknown)(...args));
    return wrapped as T;
  }
  if (Array.isArray(value)) return value.map((item) => pseudo(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, pseudo(item)])) as T;
  }
  return value;
}

/** Every language's catalogue of one feature: the Portuguese one fixes the shape, the others must match it. */
export type Catalogues<T> = { 'pt-BR': T } & Record<Exclude<Locale, 'pt-BR'>, NoInfer<T>>;

/** Every catalogue defined so far, by language: the catalogue test compares their shapes at run time. */
export const definedCatalogues: Array<Catalogues<unknown>> = [];

/**
 * A feature's catalogue in every language; returns the current language's. The Portuguese one
 * fixes the shape and every other language must match it, so a missing translation is a type error.
 */
export function defineMessages<T>(catalogues: Catalogues<T>): T {
  definedCatalogues.push(catalogues as Catalogues<unknown>);
  return current === pseudoLocale ? pseudo(catalogues['pt-BR']) : catalogues[current];
}
