/** A protocol gateway once listening, whatever its transport. */
export interface RunningGateway {
  /** The port it listens on (the one the OS chose when asked for 0). */
  port: number;
  /** Stops taking input, lets what is being stored finish and be acknowledged, then closes. */
  close(): Promise<void>;
}
