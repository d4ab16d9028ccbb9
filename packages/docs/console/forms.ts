// What the console's script has instead of the `qs` library. contract-core reads a form body
// (`application/x-www-form-urlencoded`, the Web Data API's facts) with qs, which with what it needs
// weighs 18 kB of the script gzipped; the console sends JSON bodies only (requestHeaders sets the
// Content-Type last), so that reading is never reached here, and the bundle maps `qs` to this module.
export function parse(): never {
  throw new Error("the docs console sends JSON bodies only: it does not read form bodies");
}
