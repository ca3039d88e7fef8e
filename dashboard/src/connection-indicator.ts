import { deskMessages as t } from './desk-messages.js';
import type { ConnectionState } from './live-connection.js';

/** The live channel's states, plus the time before there is a token to connect with. */
export type IndicatorState = ConnectionState | 'signed-out';

/** The top bar's dot and word telling whether the map is receiving live positions. */
export class ConnectionIndicator {
  constructor(private readonly node: HTMLElement) {
    this.show('connecting');
  }

  show(state: IndicatorState): void {
    this.node.dataset.state = state;
    this.node.textContent = t.connection[state] ?? state;
    this.node.title = state === 'live' ? t.connectionLive : t.connectionStale;
  }
}
