import { defineMessages } from './i18n.js';

/**
 * The review workflow's own texts: reopening a dismissed violation, the confirmation step before a
 * dismissal, and how the review trail names a reviewer.
 */
export const reviewMessages = defineMessages({
  'pt-BR': {
    reopen: 'Reabrir',
    reopenHint:
      'O descarte foi um engano ou há evidência nova: a infração volta a aberta (só uma descartada pode ser reaberta)',
    confirmDismissQuestion: 'Descartar esta infração?',
    confirmDismissDetail:
      'Ela sai da fila de revisão e não gera auto de infração. Poderá ser reaberta depois, com um motivo.',
    confirmDismissYes: 'Sim, descartar',
    confirmDismissNo: 'Voltar',
    adminReviewer: 'Administrador do sistema',
  },
  en: {
    reopen: 'Reopen',
    reopenHint:
      'The dismissal was a mistake or there is new evidence: the violation is open again (only a dismissed one can be reopened)',
    confirmDismissQuestion: 'Dismiss this violation?',
    confirmDismissDetail:
      'It leaves the review queue and no enforcement notice is issued. It can be reopened later, with a reason.',
    confirmDismissYes: 'Yes, dismiss',
    confirmDismissNo: 'Go back',
    adminReviewer: 'System administrator',
  },
});

/** How the review trail names who decided: the user's name, else the admin token's label, else the recorded id. */
export function reviewerLabel(review: { reviewer: string; reviewerName?: string | null }): string {
  if (review.reviewerName) return review.reviewerName;
  return review.reviewer === 'admin' ? reviewMessages.adminReviewer : review.reviewer;
}
