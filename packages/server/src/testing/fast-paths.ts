import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { expect } from 'vitest';
import { listenerWithWidgetFastPath, type WidgetFromMemory } from '../routes/widget-fast-path.js';
import { createApiKey } from '../services/api-keys.js';
import type { TestContext } from './harness.js';

/** A new publishable test key of the seeded organization, allowing `origin`. */
export const newPublishableKey = async (t: TestContext, origin: string) =>
  (
    await createApiKey(t.db, {
      orgId: t.seed.org.id,
      kind: 'publishable',
      mode: 'test',
      scope: 'write',
      origins: [origin],
    })
  ).key;

/**
 * A server on `path` whose requests take the fast path `fromMemory` only while `fast` is set;
 * otherwise the full pipeline answers (the app's own routing, without any fast path).
 * `answered()` counts the requests the fast path took.
 */
export async function serverWithSwitch(t: TestContext, fromMemory: WidgetFromMemory, path: string) {
  let fast = false;
  let answered = 0;
  const switched: WidgetFromMemory = (request) => {
    const answer = fast ? fromMemory(request) : undefined;
    if (answer) answered++;
    return answer;
  };
  const full: RequestListener = getRequestListener(t.app.fetchThroughPipeline);
  const server = createServer(listenerWithWidgetFastPath(switched, full));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    setFast: (value: boolean) => {
      fast = value;
    },
    answered: () => answered,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Status, headers and JSON body, without what differs by request (its id, the date). */
export async function comparable(res: Response) {
  const headers = Object.fromEntries(res.headers);
  expect(headers['service-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  delete headers['service-request-id'];
  delete headers.date;
  const body = (await res.json()) as Record<string, unknown>;
  if ('request_id' in body) {
    expect(body.request_id).toBe(res.headers.get('service-request-id'));
    delete body.request_id;
  }
  return { status: res.status, headers, body };
}
