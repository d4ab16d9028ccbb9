// The wire: how every tool reads and writes what crosses HTTP. It runs in a browser too; reading a
// Node message's body is the `./server` entry's.
export * from "./headers.js";
export * from "./media-types.js";
export * from "./urls.js";
export * from "./path-templates.js";
export * from "./bodies.js";
export * from "./curl.js";
export * from "./prefer.js";
