import 'maplibre-gl/dist/maplibre-gl.css';
import './styles.css';
import { AlertStatusPanel } from './alert-status-panel.js';
import { isAnalyticsRoute, mountAnalyticsDesk } from './analytics/analytics-desk.js';
import { analyticsMessages } from './analytics/analytics-messages.js';
import { type ApiClient, fetchDashboardConfig } from './api-client.js';
import type { DashboardConfig, ViolationFilters } from './api-types.js';
import { takeTokenFromLocation } from './auth-token.js';
import { ConnectionIndicator } from './connection-indicator.js';
import { installDebugHandle } from './debug-handle.js';
import { deskMessages } from './desk-messages.js';
import { localizeDeskShell } from './desk-shell.js';
import { DispatchConsole, isDispatchRoute, mountDispatchPanels } from './dispatch-console.js';
import { dispatchMessages } from './dispatch-messages.js';
import { downloadBlob, element, requireElement } from './dom.js';
import { EvidenceLayer } from './evidence-layer.js';
import { FieldAlerts } from './field-alerts.js';
import { FieldLayer } from './field-layer.js';
import { fieldMessages } from './field-messages.js';
import { FieldView, isFieldRoute, mountFieldPanel } from './field-view.js';
import { fleetMessages } from './fleet-messages.js';
import { FleetPanel } from './fleet-panel.js';
import { FleetStore } from './fleet-store.js';
import { takeHashParam } from './hash-params.js';
import { setPackTimeZones } from './legal-time.js';
import { mountMapLayers } from './map-layers/map-layers.js';
import { createMap, offlineStyleUrl, renderAreaNavigation } from './map-view.js';
import { followMapViewport } from './map-viewport.js';
import { Notice } from './notice.js';
import { ReplayPanel } from './replay/replay-panel.js';
import { mountSearch } from './search/search-navigation.js';
import { ServerClock } from './server-clock.js';
import { DashboardSession } from './session.js';
import { mountSessionBar } from './session-bar.js';
import { VehicleLayer } from './vehicle-layer.js';
import { VehiclePopup } from './vehicle-popup.js';
import { canDispatch, canUseFieldView, isRegulatorOrAdmin, onViewerChange } from './viewer.js';
import { ViolationFeedPanel } from './violation-feed-panel.js';
import { ViolationInspector } from './violation-inspector.js';
import { ViolationStore } from './violation-store.js';
import { ViolationSync } from './violation-sync.js';

/** Used when the API cannot be asked: the map still comes up, and the notice says why. */
const fallbackConfig: DashboardConfig = { styleUrl: offlineStyleUrl, offlineAfterS: 120 };

/** Small markers are hard to hit exactly, on touch screens above all. */
const clickTolerancePx = 5;

/** How often "offline" is re-judged: vehicles go quiet without sending anything. */
const statusRefreshMs = 5000;

async function main(): Promise<void> {
  // Taken first so the token leaves the address bar even if anything below fails.
  const token = takeTokenFromLocation();
  localizeDeskShell();
  mountSessionBar(requireElement('#session-bar', HTMLElement));
  const clock = new ServerClock();
  const notice = new Notice(requireElement('#notice', HTMLElement));
  const indicator = new ConnectionIndicator(requireElement('#connection', HTMLElement));
  // The field view (agents' phones) is a route of the same page: before the map, so it is laid out for it.
  const field = isFieldRoute() ? mountFieldPanel(requireElement('main.layout', HTMLElement)) : null;
  // So is the dispatch console (dispatchers' desks): its panels take the place of the fleet and feed.
  const dispatchPanels =
    field === null && isDispatchRoute() ? mountDispatchPanels(requireElement('main.layout', HTMLElement)) : null;
  // And the regulator's analytics (`#analytics/<page>`): its pages take the whole layout but for the heat map's map.
  const analytics =
    field === null && dispatchPanels === null && isAnalyticsRoute()
      ? mountAnalyticsDesk(requireElement('main.layout', HTMLElement))
      : null;
  addViewSwitch(currentRoute());

  let config = fallbackConfig;
  try {
    config = await fetchDashboardConfig(clock);
  } catch (error) {
    notice.show(deskMessages.configFailed(String(error)));
  }
  // Every time on screen is on its pack's legal clock, as the server's rules configuration sets it.
  if (config.packTimeZones) setPackTimeZones(config.packTimeZones);

  const store = new FleetStore({ offlineAfterS: config.offlineAfterS, now: () => clock.now() });
  const { map, loaded } = createMap({
    container: requireElement('#map', HTMLElement),
    styleUrl: config.styleUrl,
    onStyleFallback: (url) => notice.show(deskMessages.styleFailed(url)),
  });
  // The fleet's layer exists once the style has loaded (below).
  let vehicleLayer: VehicleLayer | null = null;
  installDebugHandle(map, store, () => vehicleLayer);
  renderAreaNavigation(requireElement('#area-nav', HTMLElement), map);
  new FleetPanel(requireElement('#fleet-panel', HTMLElement), store, config.offlineAfterS);
  window.setInterval(() => store.refreshStatuses(), statusRefreshMs);

  const violations = new ViolationStore();
  // The session is created below; the feed only reports a refused token after sign-in.
  let session: DashboardSession | null = null;
  const sync = new ViolationSync({
    store: violations,
    onState: (state) => {
      feed.showSyncState(state);
      // Signed out (the token was refused): what the old token could see leaves the screen with it.
      if (state.kind === 'idle') closeViolation();
    },
    onUnauthorized: () => session?.recheckToken(),
  });
  const feedContainer = requireElement('#violation-feed', HTMLElement);
  const detailContainer = requireElement('#violation-detail', HTMLElement);
  // Opening a violation needs the map layers, which exist only once the style has loaded.
  let openViolation: (id: string) => void = () => undefined;
  let closeViolation: () => void = () => undefined;
  const feed = new ViolationFeedPanel(feedContainer, {
    store: violations,
    now: () => clock.now(),
    onFiltersChange: (filters) => sync.setFilters(filters),
    onOpen: (id) => openViolation(id),
    onExport: (filters) => exportCsv(sync.client, filters),
    client: () => sync.client,
  });

  const dispatchConsole = dispatchPanels
    ? new DispatchConsole({
        panels: dispatchPanels,
        fleet: store,
        alerts: new FieldAlerts(),
        client: () => sync.client,
        onUnauthorized: () => session?.recheckToken(),
        now: () => clock.now(),
      })
    : null;

  let operatorNames: ReadonlyMap<string, string> = new Map();
  const operatorName = (id: string | null) =>
    id === null ? fleetMessages.popup.noOperator : (operatorNames.get(id) ?? id);
  session = new DashboardSession({
    store,
    clock,
    notice,
    indicator,
    onOperators: (names) => {
      operatorNames = names;
    },
    violations: sync,
    ...(dispatchConsole ? { bookings: dispatchConsole } : {}),
  });
  // The fleet loads while the style and its tiles do; the layer reads whatever has arrived by then.
  const started = session.start(token);
  void started.then(() => dispatchConsole?.start());
  void started.then(() =>
    analytics?.start({
      client: () => sync.client,
      now: () => clock.now(),
      onUnauthorized: () => session?.recheckToken(),
      map: loaded.then(() => map),
      onMapShown: () => map.resize(),
    }),
  );
  // Below the fleet in its side panel (desk layout only): which alert receivers are failing.
  if (field === null && dispatchConsole === null) {
    const alertSection = element('section', 'alert-status');
    alertSection.id = 'alert-status';
    requireElement('#fleet-panel', HTMLElement).append(alertSection);
    const alertStatus = new AlertStatusPanel(alertSection, {
      client: () => sync.client,
      onUnauthorized: () => session?.recheckToken(),
    });
    void started.then(() => alertStatus.refresh());
  }

  await loaded;
  // Under the fleet: the registry's places as switchable layers, and where the built-in map lacks streets.
  const mapLayers = mountMapLayers(map, {
    client: () => sync.client,
    onError: (message) => notice.show(message),
    vehicleAt: (point) => (vehicleLayer?.vehicleAt(point, clickTolerancePx) ?? null) !== null,
  });
  void started.then(() => mapLayers.reference.load());
  const layer = new VehicleLayer(map, store);
  vehicleLayer = layer;
  // The desk map asks the live feed for what it shows, at full pace, and the rest of the fleet
  // less often (dashboard/README.md, "The map at 20,000 vehicles"). The field view and the dispatch
  // console keep the whole feed: they rank vehicles outside the view by their live position.
  if (field === null && dispatchConsole === null) followMapViewport(map, (viewport) => session?.setViewport(viewport));
  dispatchConsole?.attachMap(map);
  // A red ring around every vehicle with an open violation.
  violations.subscribe(() => layer.setMarked(violations.flaggedVehicleIds()));
  layer.setMarked(violations.flaggedVehicleIds());
  const evidence = new EvidenceLayer(map);
  const inspector = new ViolationInspector({
    map,
    // In the field view the inspector swaps the field list for the detail, as it swaps the feed on a desk.
    feedContainer: field?.list ?? feedContainer,
    detailContainer: field?.detail ?? detailContainer,
    store: violations,
    evidence,
    vehicles: layer,
    client: () => sync.client,
    operatorName,
    onUnauthorized: () => session?.recheckToken(),
  });
  // History and replay under the map (desk and dispatch layouts; the field view's phone has no room for it).
  const replay =
    field === null
      ? new ReplayPanel({
          map,
          layout: requireElement('main.layout', HTMLElement),
          client: () => sync.client,
          vehicle: (id) => store.get(id),
          now: () => clock.now(),
          onActiveChange: (active) => layer.setDimmed(active),
          onUnauthorized: () => session?.recheckToken(),
        })
      : null;
  const popup = new VehiclePopup({
    map,
    store,
    client: () => sync.client,
    now: () => clock.now(),
    operatorName,
    onSelectionChange: (id) => layer.select(id),
    violations,
    onOpenViolation: (id) => {
      popup.close();
      inspector.open(id);
    },
    ...(replay
      ? {
          onOpenHistory: (id: string) => {
            popup.close();
            replay.openVehicle(id);
          },
        }
      : {}),
  });
  // The top bar's search box (`/` focuses it): a result flies the map to it (dashboard/src/search/).
  // Not on the field view's phone top bar, which keeps its room for the agent's place and radius.
  if (field === null)
    mountSearch({
      container: requireElement('#search', HTMLElement),
      map,
      fleet: store,
      client: () => sync.client,
      openVehicle: (id) => popup.open(id),
      notify: (message) => notice.show(message),
      onUnauthorized: () => session?.recheckToken(),
    });
  const fieldView = field
    ? new FieldView({
        map,
        elements: field,
        fleet: store,
        violations,
        inspector,
        layer: new FieldLayer(map),
        alerts: new FieldAlerts(),
        client: () => sync.client,
        onUnauthorized: () => session?.recheckToken(),
        now: () => clock.now(),
      })
    : null;
  openViolation = (id) => inspector.open(id);
  closeViolation = () => inspector.close();
  // A link to one violation (`/#violation=<id>`, as alert e-mails carry) opens it.
  const linked = takeHashParam('violation');
  if (linked) inspector.open(linked);
  // One handler decides between opening and closing: the popup's own close-on-click would race a
  // click on another vehicle and close the popup just opened.
  map.on('click', (event) => {
    if (fieldView?.handleMapClick(event.lngLat)) return;
    if (evidence.handleClick(event.point)) return;
    if (layer.handleClusterClick(event.point)) return;
    const id = layer.vehicleAt(event.point, clickTolerancePx);
    if (id !== null) popup.open(id);
    else {
      popup.close();
      // In the dispatch console a click on the map (not on a vehicle) pins the pickup.
      dispatchConsole?.handleMapClick(event.lngLat);
    }
  });
  await started;
}

type Route = 'desk' | 'field' | 'dispatch' | 'analytics';

function currentRoute(): Route {
  if (isFieldRoute()) return 'field';
  if (isAnalyticsRoute()) return 'analytics';
  return isDispatchRoute() ? 'dispatch' : 'desk';
}

/**
 * Links in the top bar between the desk layout, the field view and the dispatch console; the page
 * reloads into the other. Each shows only once the signed-in role may use what it opens.
 */
function addViewSwitch(route: Route): void {
  const links: Array<[string, string, () => boolean]> =
    route === 'desk'
      ? [
          ['#dispatch', dispatchMessages.openDispatch, canDispatch],
          ['#field', fieldMessages.openField, canUseFieldView],
          ['#analytics/occupancy', analyticsMessages.openAnalytics, isRegulatorOrAdmin],
        ]
      : [['#', fieldMessages.openDesk, () => true]];
  const connection = requireElement('#connection', HTMLElement);
  links.forEach(([href, text, allowed], index) => {
    const link = document.createElement('a');
    link.className = index === 0 ? 'view-switch' : 'view-switch view-switch--next';
    link.href = href;
    link.textContent = text;
    connection.before(link);
    onViewerChange(() => {
      link.hidden = !allowed();
    });
  });
  window.addEventListener('hashchange', () => {
    if (currentRoute() !== route) window.location.reload();
  });
}

/** The export needs the Authorization header, so it is fetched and handed to the browser as a Blob download. */
async function exportCsv(api: ApiClient | null, filters: ViolationFilters): Promise<void> {
  if (api === null) throw new Error(deskMessages.notSignedIn);
  const blob = await api.exportViolationsCsv(filters);
  downloadBlob(blob, deskMessages.exportFile(new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')));
}

main().catch((error: unknown) => {
  console.error(error);
  const notice = document.querySelector('#notice');
  if (notice instanceof HTMLElement) {
    notice.textContent = deskMessages.startFailed(String(error));
    notice.hidden = false;
  }
});
