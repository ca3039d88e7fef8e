import { ApiError } from './api-client.js';
import type { ReviewDecision, ViolationStatus } from './api-types.js';
import { element } from './dom.js';
import { decisionLabels } from './violation-format.js';

/**
 * The review workflow (RULES.md): open → confirmed | dismissed, by a reviewer with a reason;
 * confirmed → notified (or dismissed). The server enforces it; the form only disables what the
 * status it knows cannot take, and shows the server's own message when it refuses (another
 * officer got there first: 409; a role that may not review: 403).
 */
const allowedFrom: Record<ReviewDecision, readonly ViolationStatus[]> = {
  confirm: ['open'],
  dismiss: ['open', 'confirmed'],
  notify: ['confirmed'],
};

const decisionHints: Record<ReviewDecision, string> = {
  confirm: 'The evidence holds: the violation stands (only an open violation can be confirmed)',
  dismiss: 'The evidence does not hold (an open or confirmed violation can be dismissed)',
  notify: 'The auto de infração was issued (only a confirmed violation can be notified)',
};

/** The API's minimum; checked here too so a slip does not cost a round trip. */
const minimumReasonLength = 3;

export type SubmitReview = (decision: ReviewDecision, reason: string) => Promise<void>;

export class ReviewForm {
  readonly node: HTMLFormElement;
  private readonly reason: HTMLTextAreaElement;
  private readonly buttons = new Map<ReviewDecision, HTMLButtonElement>();
  private readonly message: HTMLElement;
  private status: ViolationStatus;
  private busy = false;

  constructor(status: ViolationStatus, submit: SubmitReview) {
    this.status = status;
    this.node = element('form', 'review-form');
    this.node.noValidate = true;
    this.node.append(element('h3', 'detail-section__title', 'Review'));
    const label = element('label', 'review-form__label', 'Reason (kept in the review trail)');
    this.reason = element('textarea', 'review-form__reason');
    this.reason.name = 'reason';
    this.reason.rows = 3;
    this.reason.maxLength = 2000;
    this.reason.id = 'review-reason';
    label.htmlFor = this.reason.id;
    const actions = element('div', 'review-form__actions');
    for (const decision of ['confirm', 'dismiss', 'notify'] as const) {
      const button = element(
        'button',
        `review-form__button review-form__button--${decision}`,
        decisionLabels[decision],
      );
      button.type = 'button';
      button.dataset.decision = decision;
      button.title = decisionHints[decision];
      button.addEventListener('click', () => void this.decide(decision, submit));
      this.buttons.set(decision, button);
      actions.append(button);
    }
    this.message = element('p', 'review-form__message');
    this.message.setAttribute('role', 'alert');
    this.message.hidden = true;
    this.node.append(label, this.reason, actions, this.message);
    this.node.addEventListener('submit', (event) => event.preventDefault());
    this.update();
  }

  /** The violation's status changed (a push, a reload, this form's own review). */
  setStatus(status: ViolationStatus): void {
    this.status = status;
    this.update();
  }

  private async decide(decision: ReviewDecision, submit: SubmitReview): Promise<void> {
    const reason = this.reason.value.trim();
    if (reason.length < minimumReasonLength) {
      this.say(`Give a reason of at least ${minimumReasonLength} characters.`, 'error');
      this.reason.focus();
      return;
    }
    this.busy = true;
    this.update();
    this.say(`${decisionLabels[decision]}…`, 'pending');
    try {
      await submit(decision, reason);
      this.reason.value = '';
      this.say(`${decisionLabels[decision]}: recorded.`, 'done');
    } catch (error) {
      this.say(refusal(error), 'error');
    } finally {
      this.busy = false;
      this.update();
    }
  }

  private update(): void {
    for (const [decision, button] of this.buttons) {
      button.disabled = this.busy || !allowedFrom[decision].includes(this.status);
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
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'The server did not answer in time.';
  if (error instanceof Error) return error.message;
  return String(error);
}
