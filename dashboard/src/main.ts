import 'maplibre-gl/dist/maplibre-gl.css';
import type { PointLike } from 'maplibre-gl';
import './styles.css';
import { fetchDashboardConfig } from './api-client.js';
import type { DashboardConfig } from './api-types.js';
import { takeTokenFromLocation } from './auth-token.js';
import { ConnectionIndicator } from './connection-indicator.js';
import { installDebugHandle } from './debug-handle.js';
import { requireElement } from './dom.js';
import { FleetPanel } from './fleet-panel.js';
import { FleetStore } from './fleet-store.js';
import { createMap, offlineStyleUrl, renderAreaNavigation } from './map-view.js';
import { Notice } from './notice.js';
import { ServerClock } from './server-clock.js';
import { DashboardSession } from './session.js';
import { VehicleLayer, vehicleCircleLayerId } from './vehicle-layer.js';
import { VehiclePopup } from './vehicle-popup.js';

/** Used when the API cannot be asked: the map still comes up, and the notice says why. */
const fallbackConfig: DashboardConfig = { styleUrl: offlineStyleUrl, offlineAfterS: 120 };

/** Small markers are hard to hit exactly, on touch screens above all. */
const clickTolerancePx = 5;

/** How often "offline" is re-judged: vehicles go quiet without sending anything. */
const statusRefreshMs = 5000;

async function main(): Promise<void> {
  // Taken first so the token leaves the address bar even if anything below fails.
  const token = takeTokenFromLocation();
  const clock = new ServerClock();
  const notice = new Notice(requireElement('#notice', HTMLElement));
  const indicator = new ConnectionIndicator(requireElement('#connection', HTMLElement));

  let config = fallbackConfig;
  try {
    config = await fetchDashboardConfig(clock);
  } catch (error) {
    notice.show(`Could not read the dashboard configuration (${String(error)}); using the built-in map.`);
  }

  const store = new FleetStore({ offlineAfterS: config.offlineAfterS, now: () => clock.now() });
  const { map, loaded } = createMap({
    container: requireElement('#map', HTMLElement),
    styleUrl: config.styleUrl,
    onStyleFallback: (url) => notice.show(`The map style at ${url} could not be loaded; showing the built-in map.`),
  });
  installDebugHandle(map, store);
  renderAreaNavigation(requireElement('#area-nav', HTMLElement), map);
  new FleetPanel(requireElement('#fleet-panel', HTMLElement), store, config.offlineAfterS);
  window.setInterval(() => store.refreshStatuses(), statusRefreshMs);

  let operatorNames: ReadonlyMap<string, string> = new Map();
  const session = new DashboardSession({
    store,
    clock,
    notice,
    indicator,
    onOperators: (names) => {
      operatorNames = names;
    },
  });
  // The fleet loads while the style and its tiles do; the layer reads whatever has arrived by then.
  const started = session.start(token);

  await loaded;
  const layer = new VehicleLayer(map, store);
  const popup = new VehiclePopup({
    map,
    store,
    now: () => clock.now(),
    operatorName: (id) => (id === null ? 'No operator' : (operatorNames.get(id) ?? id)),
    onSelectionChange: (id) => layer.select(id),
  });
  // One handler decides between opening and closing: the popup's own close-on-click would race a
  // click on another vehicle and close the popup just opened.
  map.on('click', (event) => {
    const { x, y } = event.point;
    const hitBox: [PointLike, PointLike] = [
      [x - clickTolerancePx, y - clickTolerancePx],
      [x + clickTolerancePx, y + clickTolerancePx],
    ];
    const [feature] = map.queryRenderedFeatures(hitBox, { layers: [vehicleCircleLayerId] });
    const id: unknown = feature?.properties.id;
    if (typeof id === 'string') popup.open(id);
    else popup.close();
  });
  map.on('mouseenter', vehicleCircleLayerId, () => {
    map.getCanvas().style.cursor = 'pointer';
  });
  map.on('mouseleave', vehicleCircleLayerId, () => {
    map.getCanvas().style.cursor = '';
  });
  await started;
}

main().catch((error: unknown) => {
  console.error(error);
  const notice = document.querySelector('#notice');
  if (notice instanceof HTMLElement) {
    notice.textContent = `The dashboard failed to start: ${String(error)}`;
    notice.hidden = false;
  }
});
