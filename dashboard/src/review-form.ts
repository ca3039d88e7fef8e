import { ApiError } from './api-client.js';
import type { ReviewDecision, ViolationStatus } from './api-types.js';
import { element } from './dom.js';
import { reviewMessages } from './review-messages.js';
import { decisionLabels } from './violation-format.js';
import { violationMessages } from './violation-messages.js';

const t = violationMessages.review;

/**
 * The review workflow (api/src/violations/README.md): open → confirmed | dismissed, by a reviewer
 * with a reason; confirmed → notified (or dismissed); dismissed → open again (reopen). Dismissing
 * asks for confirmation first. The server enforces it; the form only disables what the
 * status it knows cannot take, and shows the server's own message when it refuses (another
 * officer got there first: 409; a role that may not review: 403).
 */
const allowedFrom: Record<ReviewDecision, readonly ViolationStatus[]> = {
  confirm: ['open'],
  dismiss: ['open', 'confirmed'],
  notify: ['confirmed'],
  reopen: ['dismissed'],
};

const decisionHints: Record<ReviewDecision, string> = {
  ...t.hints,
  reopen: reviewMessages.reopenHint,
};

/** The API's minimum; checked here too so a slip does not cost a round trip. */
const minimumReasonLength = 3;

export type SubmitReview = (decision: ReviewDecision, reason: string) => Promise<void>;

export class ReviewForm {
  readonly node: HTMLFormElement;
  private readonly reason: HTMLTextAreaElement;
  private readonly buttons = new Map<ReviewDecision, HTMLButtonElement>();
  private readonly message: HTMLElement;
  /** The confirmation step a dismissal goes through (a dismissed violation issues no notice). */
  private readonly confirmDismiss: HTMLElement;
  private status: ViolationStatus;
  private busy = false;

  constructor(status: ViolationStatus, submit: SubmitReview) {
    this.status = status;
    this.node = element('form', 'review-form');
    this.node.noValidate = true;
    this.node.append(element('h3', 'detail-section__title', t.heading));
    const label = element('label', 'review-form__label', t.reasonLabel);
    this.reason = element('textarea', 'review-form__reason');
    this.reason.name = 'reason';
    this.reason.rows = 3;
    this.reason.maxLength = 2000;
    this.reason.id = 'review-reason';
    label.htmlFor = this.reason.id;
    const actions = element('div', 'review-form__actions');
    for (const decision of ['confirm', 'dismiss', 'notify', 'reopen'] as const) {
      const button = element(
        'button',
        `review-form__button review-form__button--${decision}`,
        decisionLabels[decision],
      );
      button.type = 'button';
      button.dataset.decision = decision;
      button.title = decisionHints[decision];
      button.addEventListener('click', () =>
        decision === 'dismiss' ? this.askToDismiss() : void this.decide(decision, submit),
      );
      this.buttons.set(decision, button);
      actions.append(button);
    }
    this.message = element('p', 'review-form__message');
    this.message.setAttribute('role', 'alert');
    this.message.hidden = true;
    this.confirmDismiss = this.dismissConfirmation(submit);
    this.node.append(label, this.reason, actions, this.confirmDismiss, this.message);
    this.node.addEventListener('submit', (event) => event.preventDefault());
    this.update();
  }

  /** The violation's status changed (a push, a reload, this form's own review). */
  setStatus(status: ViolationStatus): void {
    this.status = status;
    this.update();
  }

  /** Dismissing asks first: the reason is checked, then the officer says yes or goes back. */
  private askToDismiss(): void {
    if (!this.reasonGiven()) return;
    this.confirmDismiss.hidden = false;
    this.message.hidden = true;
    this.update();
    this.confirmDismiss.querySelector<HTMLButtonElement>('.review-form__confirm-no')?.focus();
  }

  private dismissConfirmation(submit: SubmitReview): HTMLElement {
    const box = element('div', 'review-form__confirm');
    box.setAttribute('role', 'alertdialog');
    box.setAttribute('aria-labelledby', 'review-confirm-question');
    const question = element('p', 'review-form__confirm-question', reviewMessages.confirmDismissQuestion);
    question.id = 'review-confirm-question';
    const yes = element('button', 'review-form__button review-form__confirm-yes', reviewMessages.confirmDismissYes);
    const no = element('button', 'review-form__button review-form__confirm-no', reviewMessages.confirmDismissNo);
    yes.type = 'button';
    no.type = 'button';
    yes.addEventListener('click', () => {
      box.hidden = true;
      void this.decide('dismiss', submit);
    });
    no.addEventListener('click', () => {
      box.hidden = true;
      this.update();
      this.buttons.get('dismiss')?.focus();
    });
    const actions = element('div', 'review-form__actions');
    actions.append(yes, no);
    box.append(question, element('p', 'review-form__confirm-detail', reviewMessages.confirmDismissDetail), actions);
    box.hidden = true;
    return box;
  }

  private reasonGiven(): boolean {
    if (this.reason.value.trim().length >= minimumReasonLength) return true;
    this.say(t.reasonTooShort(minimumReasonLength), 'error');
    this.reason.focus();
    return false;
  }

  private async decide(decision: ReviewDecision, submit: SubmitReview): Promise<void> {
    if (!this.reasonGiven()) return;
    const reason = this.reason.value.trim();
    this.busy = true;
    this.update();
    this.say(t.pending(decisionLabels[decision]), 'pending');
    try {
      await submit(decision, reason);
      this.reason.value = '';
      this.say(t.recorded(decisionLabels[decision]), 'done');
    } catch (error) {
      this.say(refusal(error), 'error');
    } finally {
      this.busy = false;
      this.update();
    }
  }

  private update(): void {
    for (const [decision, button] of this.buttons) {
      button.disabled = this.busy || !this.confirmDismiss.hidden || !allowedFrom[decision].includes(this.status);
      // Reopening is offered only where it applies: a dismissed violation.
      if (decision === 'reopen') button.hidden = this.status !== 'dismissed';
    }
    this.reason.disabled = this.busy;
  }

  private say(text: string, kind: 'error' | 'pending' | 'done'): void {
    this.message.textContent = text;
    this.message.dataset.kind = kind;
    this.message.hidden = false;
  }
}

function refusal(error: unknown): string {
  if (error instanceof ApiError) return error.code ? `${error.message} (${error.code})` : error.message;
  if (error instanceof DOMException && error.name === 'TimeoutError') return t.timedOut;
  if (error instanceof Error) return error.message;
  return String(error);
}
