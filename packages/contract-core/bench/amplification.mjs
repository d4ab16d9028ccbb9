// The cost of validating a 2 MB body whose array items all have the wrong type, the shape of input
// that once made validators report one error per item. Prints time, error count and reply size.
//   node bench/amplification.mjs   (after `npm run build`)
import { OpenApiValidators, loadBundle, webdataWording } from "@api-contracts/contract-core";

const webdata = new OpenApiValidators(loadBundle("webdata"));
const crawl = webdata.request("POST", "/v2/crawl");
// Warm-up: compile the validators before timing.
crawl.validate({ path: "/v2/crawl", query: {}, headers: {}, body: { url: "https://example.com" } });

const items = Array.from({ length: 1024 * 1024 }, () => 1);
const body = { url: "https://example.com", includePaths: items };
console.log(`body: ${(JSON.stringify(body).length / 1024 / 1024).toFixed(1)} MB, ${items.length} numbers where strings are due`);
const started = performance.now();
let outcome;
try {
  const errors = crawl.validate({ path: "/v2/crawl", query: {}, headers: {}, body });
  const reply = webdataWording.word({ kind: "invalid", errors });
  outcome = `${errors.length} errors, error reply ${JSON.stringify(reply.body).length} bytes`;
} catch (error) {
  outcome = `threw: ${error.message}`;
}
console.log(`validated in ${Math.round(performance.now() - started)} ms: ${outcome}`);
