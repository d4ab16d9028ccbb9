// The floor under the contract proxy's cost, for the benchmark: a pass-through built from the same
// parts (a node:http server, an undici Pool) that forwards each request, reads each answer whole and
// passes it on with an x-contract-violations header, as the proxy does, but judges nothing.
//   node bench/passthrough.mjs --upstream <URL>      prints the URL it listens on
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { Pool } from "undici";

const { values } = parseArgs({ options: { upstream: { type: "string" } } });
const pool = new Pool(values.upstream, { connections: 256 });
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "host"]);

const server = createServer((req, res) => {
  const body = [];
  req.on("data", (chunk) => body.push(chunk));
  req.on("end", () => {
    const headers = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (!HOP_BY_HOP.has(req.rawHeaders[i].toLowerCase())) headers.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const answer = [];
    let status;
    let answerHeaders;
    pool.dispatch(
      { method: req.method, path: req.url, headers, body: Buffer.concat(body) },
      {
        onRequestStart() {},
        onResponseStart(_controller, code, received) {
          status = code;
          answerHeaders = received;
        },
        onResponseData(_controller, chunk) {
          answer.push(chunk);
        },
        onResponseEnd() {
          const out = [];
          for (const [name, value] of Object.entries(answerHeaders)) if (!HOP_BY_HOP.has(name)) for (const one of [value].flat()) out.push(name, one);
          out.push("x-contract-violations", "0");
          res.writeHead(status, out).end(Buffer.concat(answer));
        },
        onResponseError(_controller, error) {
          res.destroy(error);
        },
      },
    );
  });
});
server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}`));
process.once("SIGTERM", () => process.exit(0));
