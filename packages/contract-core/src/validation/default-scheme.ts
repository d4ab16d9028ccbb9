/**
 * A URL as the web data service reads one given without a scheme: `<scheme>://` put in front unless
 * it starts with a run of characters without `.` or `:` and then `://`. This is the whole test the
 * live service makes, so `example.com:8080/x` gets the scheme and ` https://x` (a leading space)
 * keeps its own; the url rule (`x-rules` `defaultScheme`) and the reference server both read URLs
 * through it, before any trim.
 */
export function withDefaultScheme(url: string, scheme: string): string {
  return /^[^.:]+:\/\//.test(url) ? url : `${scheme}://${url}`;
}
