import type { ConnectionState } from './live-connection.js';

/** The live channel's states, plus the time before there is a token to connect with. */
export type IndicatorState = ConnectionState | 'signed-out';

const labels: Record<IndicatorState, string> = {
  'signed-out': 'Not signed in',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
};

/** The top bar's dot and word telling whether the map is receiving live positions. */
export class ConnectionIndicator {
  constructor(private readonly node: HTMLElement) {
    this.show('connecting');
  }

  show(state: IndicatorState): void {
    this.node.dataset.state = state;
    this.node.textContent = labels[state];
    this.node.title = state === 'live' ? 'Receiving live positions' : 'Positions on the map may be out of date';
  }
}
