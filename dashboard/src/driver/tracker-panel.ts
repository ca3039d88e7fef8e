import { element } from '../dom.js';
import { driverMessages as m } from './driver-messages.js';
import type { MeterState, Tracker, TrackerStatus } from './tracker.js';

/** "Usar este celular como rastreador" and the meter buttons (Livre / Ocupado). */
export class TrackerPanel {
  private readonly toggle: HTMLInputElement;
  private readonly status: HTMLElement;
  private readonly meterButtons = new Map<MeterState, HTMLButtonElement>();

  constructor(
    node: HTMLElement,
    private readonly tracker: Tracker,
  ) {
    const heading = element('h2', 'driver-tracker__title', m.trackerTitle);
    const label = element('label', 'driver-tracker__toggle');
    this.toggle = element('input');
    this.toggle.type = 'checkbox';
    this.toggle.id = 'tracker-toggle';
    this.toggle.checked = tracker.isEnabled;
    this.toggle.addEventListener('change', () => {
      tracker.setEnabled(this.toggle.checked);
      this.render();
    });
    label.append(this.toggle, element('span', undefined, m.trackerToggle));
    this.status = element('p', 'driver-tracker__status');
    this.status.setAttribute('role', 'status');

    const meter = element('div', 'driver-tracker__meter');
    meter.setAttribute('role', 'group');
    meter.setAttribute('aria-label', m.meterTitle);
    for (const [state, text] of [
      ['free', m.meterFree],
      ['hired', m.meterHired],
    ] as const) {
      const button = element('button', `driver-button driver-button--meter driver-button--${state}`, text);
      button.type = 'button';
      button.dataset.meter = state;
      button.addEventListener('click', () => {
        tracker.setMeter(state);
        this.render();
      });
      this.meterButtons.set(state, button);
      meter.append(button);
    }
    node.replaceChildren(heading, label, this.status, meter);
    this.render();
  }

  showStatus(status: TrackerStatus): void {
    this.status.textContent = statusText(status);
    this.status.hidden = this.status.textContent === '';
    this.toggle.checked = this.tracker.isEnabled;
  }

  private render(): void {
    for (const [state, button] of this.meterButtons) {
      button.setAttribute('aria-pressed', String(state === this.tracker.meterState));
      button.disabled = !this.tracker.isEnabled;
    }
    this.showStatus(this.tracker.currentStatus);
  }
}

function statusText(status: TrackerStatus): string {
  switch (status.kind) {
    case 'off':
      return '';
    case 'waiting-fix':
      return m.trackerWaitingFix;
    case 'on':
      return m.trackerOn(status.pending);
    case 'denied':
      return m.trackerDenied;
    case 'insecure':
      return m.trackerInsecure;
    case 'refused':
      return m.trackerRefused(status.message);
  }
}
