// The baseline: a bare node:http server that answers every request with one fixed JSON body.
//   node bench/plain-server.mjs <port> <body-file>
import { createServer } from "node:http";
import { readFileSync } from "node:fs";

const [port, file] = process.argv.slice(2);
const body = readFileSync(file);
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  });
});
server.listen(Number(port), "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}`));
process.once("SIGTERM", () => server.close(() => process.exit(0)));
