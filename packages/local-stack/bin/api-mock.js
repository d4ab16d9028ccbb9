#!/usr/bin/env node
// Node 22.1+ keeps the compiled code of every module it loads on disk (in its own cache folder,
// checked against each file's content), so that the next start skips compiling them. Earlier
// Node releases have no such cache: there the command starts as before.
import module from "node:module";

module.enableCompileCache?.();
const { main } = await import("../dist/cli.js");

process.exitCode = await main(process.argv.slice(2));
