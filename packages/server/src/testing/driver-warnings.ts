import { afterEach, expect } from 'vitest';

// pg runs a query sent on a connection that is still running another one after it, with a
// deprecation warning; pg@9 will refuse it. Inside a transaction (one connection) code that sends
// queries together works today and breaks on that upgrade, so a test that sets it off fails here.
// pg warns once per process, and each server test file runs in a process of its own (pool: forks).
const concurrentQueries: string[] = [];
process.on('warning', (warning) => {
  if (warning.message.includes('client is already executing a query')) {
    concurrentQueries.push(warning.stack ?? warning.message);
  }
});

afterEach(() => {
  expect(concurrentQueries.splice(0), 'queries sent together on one pg connection').toEqual([]);
});
