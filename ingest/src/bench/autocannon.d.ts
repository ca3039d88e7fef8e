/**
 * The little of autocannon 9 (which ships no types) that the bench's load generator uses. The
 * result is declared `unknown`: http-load.ts checks the fields it reads with zod.
 */
declare module 'autocannon' {
  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Called before each send of this request; what it returns is sent. */
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  }

  interface AutocannonOptions {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Requests in total, spread over the connections; the run ends when all are answered. */
    amount?: number;
    /** Seconds per request. */
    timeout?: number;
    /** Milliseconds between two samples of the per-second figures (and checks for the end of the run). */
    sampleInt?: number;
    requests?: AutocannonRequest[];
  }

  /** Resolves with the run's figures when the run is over. */
  function autocannon(options: AutocannonOptions): PromiseLike<unknown>;
  export default autocannon;
}
