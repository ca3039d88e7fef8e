import { type ApiClient, UnauthorizedError } from './api-client.js';
import { AddressSearch } from './dispatch-address-search.js';
import { createBooking, type DispatchOperator } from './dispatch-api.js';
import { dispatchMessages as t } from './dispatch-messages.js';
import type { Booking, Place } from './dispatch-types.js';
import { element, valueElement } from './dom.js';

export interface BookingFormOptions {
  client: () => ApiClient | null;
  onCreated: (booking: Booking) => void;
  onPickup: (place: Place | null) => void;
  onUnauthorized: () => void;
}

const maxPassengers = 8;

/**
 * A new booking, typed: pickup (search or a map click), operator (the caller's), auto or manual,
 * passengers, notes. Enter anywhere in the form creates it (Enter in the pickup field with
 * suggestions open takes the suggestion first); the form then clears for the next call, keeping
 * the operator and mode.
 */
export class BookingForm {
  readonly form: HTMLFormElement;
  readonly address: AddressSearch;
  private readonly operator: HTMLSelectElement;
  private readonly mode: HTMLSelectElement;
  private readonly passengers: HTMLInputElement;
  private readonly notes: HTMLInputElement;
  private readonly submit: HTMLButtonElement;
  private readonly message: HTMLElement;
  private busy = false;

  constructor(
    root: HTMLElement,
    private readonly options: BookingFormOptions,
  ) {
    this.form = element('form', 'dispatch-form');
    this.form.noValidate = true;
    this.form.append(element('h2', 'panel-heading', t.formHeading));
    this.address = new AddressSearch(this.form, { client: options.client, onPlace: options.onPickup });

    const row = element('div', 'dispatch-form__row');
    this.operator = element('select', 'dispatch-input');
    this.operator.name = 'operatorId';
    this.mode = element('select', 'dispatch-input');
    this.mode.name = 'mode';
    for (const [value, text] of [
      ['auto', t.modeAuto],
      ['manual', t.modeManual],
    ] as const) {
      const option = element('option', undefined, text);
      option.value = value;
      this.mode.append(option);
    }
    this.passengers = element('input', 'dispatch-input dispatch-input--narrow');
    this.passengers.name = 'passengers';
    this.passengers.type = 'number';
    this.passengers.min = '1';
    this.passengers.max = String(maxPassengers);
    this.passengers.value = '1';
    row.append(
      labelled(t.operatorLabel, this.operator),
      labelled(t.modeLabel, this.mode),
      labelled(t.passengersLabel, this.passengers),
    );
    this.notes = element('input', 'dispatch-input');
    this.notes.name = 'notes';
    this.notes.type = 'text';
    this.notes.maxLength = 500;
    this.submit = element('button', 'dispatch-button dispatch-button--primary', t.submit);
    this.submit.type = 'submit';
    this.message = element('p', 'dispatch-message');
    this.message.setAttribute('role', 'status');
    this.message.hidden = true;
    this.form.append(row, labelled(t.notesLabel, this.notes), this.submit, this.message);
    root.append(this.form);

    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.send();
    });
  }

  setOperators(operators: readonly DispatchOperator[]): void {
    const current = this.operator.value;
    this.operator.replaceChildren();
    for (const operator of operators) {
      const option = valueElement('option', undefined, operator.name);
      option.value = operator.id;
      this.operator.append(option);
    }
    if (operators.some((operator) => operator.id === current)) this.operator.value = current;
    this.submit.disabled = operators.length === 0;
    if (operators.length === 0) this.say(t.noOperators, 'error');
  }

  focus(): void {
    this.address.input.focus();
    this.address.input.select();
  }

  private async send(): Promise<void> {
    if (this.busy) return;
    const client = this.options.client();
    if (client === null) return this.say(t.notSignedIn, 'error');
    const pickup = this.address.place;
    if (pickup === null) {
      this.say(t.pickupMissing, 'error');
      this.address.input.focus();
      return;
    }
    const passengers = Number(this.passengers.value);
    const notes = this.notes.value.trim();
    this.busy = true;
    this.submit.disabled = true;
    this.say(t.creating, 'pending');
    try {
      const booking = await createBooking(client, {
        operatorId: this.operator.value,
        pickup: { lat: pickup.lat, lon: pickup.lon, ...(pickup.address ? { address: pickup.address } : {}) },
        mode: this.mode.value === 'manual' ? 'manual' : 'auto',
        ...(Number.isInteger(passengers) && passengers > 0 ? { passengers } : {}),
        ...(notes ? { notes } : {}),
      });
      if (booking === null) throw new Error('unexpected answer');
      this.say(t.created(booking.id), 'ok');
      this.address.reset();
      this.passengers.value = '1';
      this.notes.value = '';
      this.options.onCreated(booking);
    } catch (error) {
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      this.say(t.refused(error instanceof Error ? error.message : String(error)), 'error');
    } finally {
      this.busy = false;
      this.submit.disabled = this.operator.options.length === 0;
    }
  }

  private say(text: string, state: 'ok' | 'error' | 'pending'): void {
    this.message.textContent = text;
    this.message.dataset.state = state;
    this.message.hidden = false;
  }
}

function labelled(text: string, control: HTMLElement): HTMLLabelElement {
  const label = element('label', 'dispatch-field');
  label.append(element('span', 'dispatch-label', text), control);
  return label;
}
