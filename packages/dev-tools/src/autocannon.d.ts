// The part of autocannon's API the benches use: it ships no type declarations.
declare module "autocannon" {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    /** Opens a new connection after this many requests on one. */
    reconnectRate?: number;
  }
  interface Result {
    /** `total`: answers counted; `sent`: requests written. */
    requests: { total: number; sent: number };
    /** Connection errors (a reset among them); autocannon reconnects after each. */
    errors: number;
    non2xx: number;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
