/**
 * What one GT06 packet says, as the decoder reads it: the protocol decoder's output in Traccar's
 * pipeline, before any device, profile or clock setting is applied.
 */

/** Protocol numbers this gateway takes. */
export const GT06_PROTOCOL = {
  login: 0x01,
  /** GPS only (early GT06). */
  gps: 0x10,
  /** GPS + LBS (GT06, GT06N). */
  gpsLbs: 0x12,
  /** Heartbeat / status: terminal information, voltage level, GSM signal. */
  status: 0x13,
  /** The answer to a server command (0x80): text. */
  commandReply: 0x15,
  /** GPS + LBS + status + alarm. */
  alarm: 0x16,
  /** GPS + LBS + ACC (Concox, UTC). */
  gpsLbs2: 0x22,
  /** Alarm, as 0x16 (newer Concox models). */
  alarm2: 0x26,
  /** Alarm, as 0x16 with a geofence number. */
  alarm3: 0x27,
  /** GPS + LBS (4-byte cell id) + ACC + odometer, external voltage, hour meter (GT06V4 firmware in Brazil). */
  gpsLbs4: 0x32,
  /** A server command: only a server sends it. */
  serverCommand: 0x80,
} as const;

/** The date-time fields of a GPS block, as sent (the firmware's clock: UTC unless set to local time). */
export interface Gt06DateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface Gt06Gps {
  time: Gt06DateTime;
  satellites: number;
  /** Degrees, south negative (hemisphere bit of course/status). */
  latitude: number;
  /** Degrees, west negative. */
  longitude: number;
  speedKmh: number;
  courseDeg: number;
  /** Course/status bit 12: the GPS had a fix (else the position is the last known one). */
  positioned: boolean;
  /** Course/status bits 14 (ACC reported) and 15 (ACC on), where a firmware uses them. */
  accFromCourse?: boolean | undefined;
}

/** The status block of heartbeats and alarm packets. */
export interface Gt06Status {
  /**
   * Terminal information: bit 0 defence (armed), 1 ACC on, 2 charging, 3–5 alarm kind, 6 GPS
   * tracking on, 7 oil/electricity cut.
   */
  terminalInfo: number;
  /** 0 (no power) … 6 (very high). */
  voltageLevel: number;
  /** 0 (no signal) … 4 (strong). */
  gsmSignal: number;
}

export type Gt06Message =
  | {
      kind: 'login';
      imei: string;
      /** The login's time-zone extension, when the firmware sends one: its clock's offset from UTC. */
      utcOffsetMinutes?: number | undefined;
    }
  | { kind: 'status'; status: Gt06Status; alarm?: number | undefined }
  | {
      kind: 'position';
      gps: Gt06Gps;
      /** Alarm packets (0x16, 0x26, 0x27). */
      status?: Gt06Status | undefined;
      /** The alarm code of an alarm packet (0x01 SOS, 0x02 power cut, 0x14 door, 0xFE ACC on, 0xFF ACC off, ...). */
      alarm?: number | undefined;
      /** The ACC byte of 0x22 / 0x32. */
      acc?: boolean | undefined;
      /** Odometer in metres (0x32, and 0x16 with the mileage extension). */
      mileageM?: number | undefined;
      /** External supply in centivolts (0x32). */
      externalVoltageCv?: number | undefined;
      /** The firmware re-sends this position from its memory (0x22 / 0x32 re-upload byte). */
      reupload?: boolean | undefined;
    }
  | { kind: 'commandReply'; text: string };
