#!/usr/bin/env node
// The svc-server CLI. The server is written in TypeScript and runs through tsx's loader, so there
// is no build step between a change and `npx svc-server serve`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
