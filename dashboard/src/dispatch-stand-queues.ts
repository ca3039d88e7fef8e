import { type ApiClient, UnauthorizedError } from './api-client.js';
import type { StandItem } from './api-types.js';
import { listStands, standCentre, standQueue } from './dispatch-api.js';
import { dispatchMessages as t } from './dispatch-messages.js';
import { clockDuration } from './dispatch-types.js';
import { element } from './dom.js';
import { distanceLabel, distanceM, type LatLon } from './field-geo.js';

export interface StandQueuePanelOptions {
  client: () => ApiClient | null;
  onUnauthorized: () => void;
}

/** Queues shown: the stands nearest the pickup, the ones a taxi would come from first. */
const shown = 3;
const withinM = 3000;
/** Queues change as taxis arrive and leave; a few seconds behind is what a dispatcher can read anyway. */
const refreshMs = 5000;

interface NearStand {
  id: string;
  name: string;
  distanceM: number;
}

/**
 * The side panel of stand queues (`GET /v1/stands/:id/queue`, first in line first): for the stands
 * nearest the selected booking's pickup (or the pickup being typed), refreshed every 5 s while
 * there is one. Stands are listed once per sign-in (reference data).
 */
export class StandQueuePanel {
  private stands: Array<StandItem & LatLon> = [];
  private near: NearStand[] = [];
  private focus: LatLon | null = null;
  private timer: number | undefined;
  private readonly body: HTMLElement;

  constructor(
    root: HTMLElement,
    private readonly options: StandQueuePanelOptions,
  ) {
    root.append(element('h2', 'panel-heading', t.queuesHeading), element('p', 'dispatch-note', t.queuesHint));
    this.body = element('div', 'dispatch-queues');
    root.append(this.body);
    this.body.append(element('p', 'dispatch-empty', t.queuesNone));
  }

  async load(): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    try {
      this.stands = (await listStands(client)).map((stand) => ({ ...stand, ...standCentre(stand) }));
    } catch (error) {
      if (error instanceof UnauthorizedError) this.options.onUnauthorized();
      this.stands = [];
    }
    this.setFocus(this.focus);
  }

  setFocus(focus: LatLon | null): void {
    this.focus = focus;
    const near =
      focus === null
        ? []
        : this.stands
            .map((stand) => ({ id: stand.id, name: stand.name, distanceM: distanceM(focus, stand) }))
            .filter((stand) => stand.distanceM <= withinM)
            .sort((a, b) => a.distanceM - b.distanceM)
            .slice(0, shown);
    // Same stands: the running refresh goes on (it checks, by identity, that its stands are still the ones shown).
    if (near.map((s) => s.id).join() === this.near.map((s) => s.id).join() && this.timer !== undefined) return;
    this.near = near;
    window.clearInterval(this.timer);
    this.timer = undefined;
    if (near.length === 0) {
      this.body.replaceChildren(element('p', 'dispatch-empty', t.queuesNone));
      return;
    }
    void this.refresh();
    this.timer = window.setInterval(() => void this.refresh(), refreshMs);
  }

  private async refresh(): Promise<void> {
    const client = this.options.client();
    if (client === null) return;
    const stands = this.near;
    const queues = await Promise.all(
      stands.map((stand) =>
        standQueue(client, stand.id).then(
          (items) => ({ items, error: null }),
          (error: unknown) => ({ items: [], error }),
        ),
      ),
    );
    // The focus moved while these were asked: the next refresh draws the new stands.
    if (stands !== this.near) return;
    if (queues.some((queue) => queue.error instanceof UnauthorizedError)) this.options.onUnauthorized();
    this.body.replaceChildren();
    stands.forEach((stand, index) => {
      const queue = queues[index];
      const section = element('section', 'dispatch-queue');
      section.dataset.standId = stand.id;
      section.append(element('h3', 'dispatch-queue__name', `${stand.name} · ${distanceLabel(stand.distanceM)}`));
      if (queue?.error) {
        const message = queue.error instanceof Error ? queue.error.message : String(queue.error);
        section.append(element('p', 'dispatch-empty', t.queueFailed(message)));
      } else if (!queue || queue.items.length === 0) {
        section.append(element('p', 'dispatch-empty', t.queueEmpty));
      } else {
        const list = element('ol', 'dispatch-queue__items');
        queue.items.forEach((item, position) => {
          const row = element(
            'li',
            'dispatch-queue__item',
            t.queueItem(position + 1, item.plate ?? t.unknownPlate, clockDuration(item.waitedS)),
          );
          row.dataset.vehicleId = item.vehicleId;
          list.append(row);
        });
        section.append(list);
      }
      this.body.append(section);
    });
  }

  stop(): void {
    window.clearInterval(this.timer);
    this.timer = undefined;
  }
}
