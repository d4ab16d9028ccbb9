#!/usr/bin/env node
// Builds dist/ for every API in the registry: `npm run build`.
import { buildDocs } from "../src/build.mjs";

buildDocs({ log: (line) => console.log(line) });
