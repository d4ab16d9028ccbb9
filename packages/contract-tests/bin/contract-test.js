#!/usr/bin/env node
let main;
try {
  ({ main } = await import("../dist/cli.js"));
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist/cli.js")) throw error;
  process.stderr.write("contract-test: the kit is not built yet; run `npm run build` from the repository root first.\n");
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));
