import { z } from 'zod';

/**
 * Bounds on what a device connection may cost the server. The defaults suit real trackers (a
 * Teltonika AVL packet is at most a few kilobytes; Traccar Client sends one small request per
 * position); tests shorten the timeouts. Every limit exists so that one misbehaving or hostile
 * connection cannot take memory, sockets or time from the others.
 */
export const gatewayLimitsSchema = z.object({
  /** Largest AVL data length accepted in one Teltonika TCP packet (bytes, after the 8-byte header). */
  teltonikaMaxDataBytes: z
    .number()
    .int()
    .min(64)
    .max(16 * 1024 * 1024)
    .default(64 * 1024),
  /** The IMEI must arrive this soon after connecting. */
  teltonikaHandshakeTimeoutMs: z.number().int().positive().default(30_000),
  /**
   * A packet once begun must be complete this soon: a connection that trickles bytes (slowloris)
   * is closed instead of holding a socket and a buffer forever.
   */
  teltonikaFrameTimeoutMs: z.number().int().positive().default(30_000),
  /** A connection with no traffic at all for this long is closed (devices reconnect when they have data). */
  teltonikaIdleTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
  /** Corrupt packets in a row on one connection before it is closed (a device re-sends on a new one). */
  teltonikaMaxConsecutiveBadPackets: z.number().int().positive().default(3),
  /** Open Teltonika TCP connections at most; more are refused by the kernel queue. */
  teltonikaMaxConnections: z.number().int().positive().default(20_000),
  /** Teltonika UDP datagrams being stored at once; more are dropped unanswered (the device re-sends). */
  teltonikaUdpMaxInFlight: z.number().int().positive().default(2_000),
  /** Largest GT06 packet accepted, start to stop bits (bytes); a real one is under 300. */
  gt06MaxPacketBytes: z.number().int().min(64).max(65_539).default(2048),
  /** The login must arrive this soon after connecting. */
  gt06LoginTimeoutMs: z.number().int().positive().default(30_000),
  /** A packet once begun must be complete this soon (slowloris, a length of 255 with no body). */
  gt06FrameTimeoutMs: z.number().int().positive().default(30_000),
  /** A connection with no traffic at all for this long is closed (heartbeats come every few minutes). */
  gt06IdleTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
  /** Dropped packets in a row (bad CRC, malformed, before login) before the connection is closed. */
  gt06MaxConsecutiveBadPackets: z.number().int().positive().default(3),
  /** Open GT06 connections at most; more are refused by the kernel queue. */
  gt06MaxConnections: z.number().int().positive().default(20_000),
  /** Largest OsmAnd request body (bytes). */
  osmandBodyLimitBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /** Open OsmAnd HTTP connections at most. */
  osmandMaxConnections: z.number().int().positive().default(20_000),
  /** An OsmAnd request (headers and body) must be complete this soon after it starts. */
  osmandRequestTimeoutMs: z.number().int().positive().default(30_000),
  /** How long `close()` lets in-flight packets finish before it closes their connections anyway. */
  closeGraceMs: z.number().int().min(0).default(10_000),
  /**
   * Refusal log lines per code per `logIntervalMs` (then one summary line): refusals of
   * unauthenticated input are counted in /metrics one by one, but anyone can cause them by the
   * thousand, and each line written is disk.
   */
  logLinesPerCode: z.number().int().positive().default(20),
  logIntervalMs: z.number().int().positive().default(60_000),
});

export type GatewayLimits = z.output<typeof gatewayLimitsSchema>;
export type GatewayLimitsInput = z.input<typeof gatewayLimitsSchema>;
