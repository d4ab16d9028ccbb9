// Preloaded (`node --require`) into Firecrawl's workers: their health endpoints listen on a port
// without a host (yzkee/firecrawl@ca0be9b7d91e apps/api/src/services/queue-worker.ts
// `app.listen(workerPort, ...)`, apps/api/src/services/worker/nuq-worker-runner.ts
// `app.listen(config.NUQ_WORKER_PORT, ...)`), which is every interface of the machine. A run listens on
// loopback only, so a listen that names a port but no host binds 127.0.0.1; any other listen is
// left as it is. The server's own code is not changed.
"use strict";
const net = require("node:net");

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [first, second] = args;
  const isPort = typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first));
  if (isPort && typeof second !== "string") return listen.call(this, first, "127.0.0.1", ...args.slice(1));
  if (typeof first === "object" && first !== null && first.port !== undefined && first.host === undefined && first.path === undefined) {
    return listen.call(this, { ...first, host: "127.0.0.1" }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
