/**
 * How servers behave, apart from what the contract says: the HTTP edge of the mock, the reference
 * server and the contract proxy, the faults they inject and how, the sender of webhook calls, and
 * when a command stops (a signal, or the end of the npm process that launched it). Node only.
 * What the contract says (the main entry and `./contract`) imports nothing from here.
 */
// Every export of these modules is public: what is internal to them is not exported.
export * from "./http-edge.js";
export * from "./bodies.js";
export * from "./faults/plan.js";
export * from "./faults/effects.js";
export * from "./webhook-sender.js";
export * from "./stop-request.js";
