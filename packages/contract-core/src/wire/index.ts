/**
 * The wire: how every tool reads and writes what crosses HTTP, apart from what the contract says
 * (headers, media types, URLs, path templates, bounded bodies, curl, `Prefer`, fault names). This
 * part runs in a browser too; the Node part (reading a request's body) is the `./server` entry's.
 */
export * from "./headers.js";
export * from "./media-types.js";
export * from "./urls.js";
export * from "./path-templates.js";
export * from "./bodies.js";
export * from "./curl.js";
export * from "./prefer.js";
