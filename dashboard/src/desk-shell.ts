import { deskMessages as t } from './desk-messages.js';
import { applyDocumentLanguage } from './i18n.js';
import { setTokenDialogText } from './token-dialog.js';

/**
 * The desk page's static HTML (index.html) in the chosen language: the HTML carries the pt-BR
 * text for screen readers before the script runs; this sets the catalogue's, and `<html lang>`.
 */
export function localizeDeskShell(): void {
  applyDocumentLanguage();
  document.title = t.pageTitle;
  setText('.brand__tagline', t.tagline);
  setLabel('#area-nav', t.areaNav);
  setLabel('#fleet-panel', t.fleetPanel);
  setLabel('#violations-panel', t.violationsPanel);
  setLabel('#violation-detail', t.violationPanel);
  setTokenDialogText({ title: t.tokenTitle, label: t.tokenLabel, hint: t.tokenHint, submit: t.tokenSubmit });
}

function setText(selector: string, text: string): void {
  const node = document.querySelector(selector);
  if (node) node.textContent = text;
}

function setLabel(selector: string, label: string): void {
  document.querySelector(selector)?.setAttribute('aria-label', label);
}
