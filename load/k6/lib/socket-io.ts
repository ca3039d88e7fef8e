/**
 * Just enough of Socket.IO for k6, which speaks plain WebSocket (`k6/websockets`) and has no
 * Socket.IO client: Engine.IO v4 framing over the `websocket` transport and Socket.IO v5 packets
 * (text only; `/live` sends no binary). The Node runner uses socket.io-client itself.
 *
 * Frames: the server opens with `0{…}`; it pings with `2`, to be answered `3` within its
 * `pingTimeout` or it drops the connection; `4…` carries a Socket.IO packet: `0/live,{…}` admitted
 * to the namespace, `4/live,{"message":…}` refused, `2/live,["event",…args]` an event.
 */

/** The WebSocket URL of a Socket.IO server at `httpBase` (http → ws, https → wss). */
export const socketIoUrl = (httpBase: string) =>
  `${httpBase.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`;

/** Joins namespace `nsp` with `auth` (the handshake's `auth`, where `/live` reads `token`). */
export const connectFrame = (nsp: string, auth: Record<string, string>) => `40${nsp},${JSON.stringify(auth)}`;

export const PONG_FRAME = '3';

export type Frame =
  | { kind: 'open' }
  | { kind: 'ping' }
  | { kind: 'connected'; nsp: string }
  | { kind: 'refused'; nsp: string; message: string }
  | { kind: 'event'; nsp: string; name: string; args: unknown[] }
  | { kind: 'other' };

/** Reads one text frame. */
export function parseFrame(data: string): Frame {
  if (data === '2') return { kind: 'ping' };
  if (data.startsWith('0')) return { kind: 'open' };
  if (!data.startsWith('4') || data.length < 2) return { kind: 'other' };
  const type = data[1];
  let rest = data.slice(2);
  let nsp = '/';
  if (rest.startsWith('/')) {
    const comma = rest.indexOf(',');
    nsp = comma === -1 ? rest : rest.slice(0, comma);
    rest = comma === -1 ? '' : rest.slice(comma + 1);
  }
  // An acknowledgement id, which events the server emits do not carry, precedes the payload.
  rest = rest.replace(/^\d+/, '');
  let payload: unknown;
  try {
    payload = rest === '' ? undefined : JSON.parse(rest);
  } catch {
    return { kind: 'other' };
  }
  if (type === '0') return { kind: 'connected', nsp };
  if (type === '4') {
    const message =
      typeof payload === 'object' && payload !== null && 'message' in payload ? String(payload.message) : 'refused';
    return { kind: 'refused', nsp, message };
  }
  if (type === '2' && Array.isArray(payload) && typeof payload[0] === 'string') {
    return { kind: 'event', nsp, name: payload[0], args: payload.slice(1) };
  }
  return { kind: 'other' };
}
