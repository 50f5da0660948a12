#!/usr/bin/env node
// The `debrief` command: bin/debrief.js and `npm start` run this file. The commands live in
// cli-commands.ts, where tests run them in-process; `serve` keeps running after it resolves.
import { runCli } from './cli-commands.js';

const code = await runCli(process.argv.slice(2));
if (code !== 0) process.exit(code);
