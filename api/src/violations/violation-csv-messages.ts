/**
 * The Portuguese texts the violations CSV writes inside its cells (the review trail): the export
 * is read by Brazilian officers and lawyers. Column headers of the violation's own fields stay
 * the API's field names (a spreadsheet or script that reads the export keeps working); the
 * measured values' headers come from the rules' catalogue (`measuredLabel`).
 */
export const violationCsvMessages = {
  decisions: {
    confirm: 'Confirmada',
    dismiss: 'Descartada',
    notify: 'Notificada',
    reopen: 'Reaberta',
  } as Record<string, string>,
  adminReviewer: 'Administrador do sistema',
  /** One decision of the trail: when, what, who, why. */
  trailLine: (at: string, decision: string, reviewer: string, reason: string) =>
    `${at} — ${decision} — ${reviewer} — ${reason}`,
};
