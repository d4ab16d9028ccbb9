// An upstream for the benchmark, in its own process, printing its URL:
//   node bench/upstream.mjs plain <body-file>   a bare node:http server answering every request with one JSON body
//   node bench/upstream.mjs slow <body-file>    the same, answering each request a millisecond later
//   node bench/upstream.mjs mock                the Entitlements mock of @api-contracts/mock-server
//   node bench/upstream.mjs reference           the Entitlements API of @api-contracts/reference-server
import { createServer } from "node:http";
import { readFileSync } from "node:fs";

const [kind, file] = process.argv.slice(2);
let close;
if (kind === "plain" || kind === "slow") {
  const body = readFileSync(file);
  const answer = (res) => res.writeHead(200, { "content-type": "application/json", "content-length": body.length }).end(body);
  const server = createServer((req, res) => {
    req.resume();
    // "slow" waits a millisecond before answering, as a service that reads a database does.
    req.on("end", () => (kind === "slow" ? setTimeout(answer, 1, res) : answer(res)));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  console.log(`http://127.0.0.1:${server.address().port}`);
  close = () => server.close();
} else if (kind === "reference") {
  const { startReferenceServer } = await import("@api-contracts/reference-server");
  const reference = await startReferenceServer({ service: "entitlements" });
  console.log(reference.url);
  close = () => reference.close();
} else {
  const { startMockServer } = await import("@api-contracts/mock-server");
  const mock = await startMockServer({ service: "entitlements" });
  console.log(mock.url);
  close = () => mock.close();
}
process.once("SIGTERM", () => {
  close();
  process.exit(0);
});
