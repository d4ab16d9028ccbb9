#!/usr/bin/env node
// `turbo run build`, its output shown only when it fails (`npm start` runs it first): turbo prints
// its banner, the packages in scope and the cache's tally on every run, and a start should print
// the URLs it serves.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const turbo = createRequire(import.meta.url).resolve("turbo/bin/turbo");
const child = spawn(process.execPath, [turbo, "run", "build", "--output-logs=errors-only"], { stdio: ["ignore", "pipe", "pipe"] });
const output = [];
child.stdout.on("data", (chunk) => output.push(chunk));
child.stderr.on("data", (chunk) => output.push(chunk));
child.once("close", (code, signal) => {
  if (code === 0) return;
  process.stderr.write(Buffer.concat(output));
  process.exitCode = code ?? 1;
  if (signal) console.error(`turbo run build ended by ${signal}`);
});
