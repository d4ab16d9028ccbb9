#!/usr/bin/env node
// client-types <api>: run in a client package, writes src/generated/<api>.ts from the bundle
// @api-contracts/spec/<api>.json.
import { writeGeneratedTypes } from "../dist/generate.js";

const api = process.argv[2];
if (!api) {
  console.error("usage: client-types <api>   (e.g. client-types entitlements)");
  process.exit(2);
}
console.log(`wrote ${await writeGeneratedTypes(api)}`);
