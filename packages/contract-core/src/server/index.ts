// How servers behave, apart from what the contract says (which imports nothing from here); Node only.
// Every export of these modules is public: what is internal to them is not exported.
export * from "./http-edge.js";
export * from "./bodies.js";
export * from "./faults/plan.js";
export * from "./faults/effects.js";
export * from "./webhook-sender.js";
export * from "./stop-request.js";
