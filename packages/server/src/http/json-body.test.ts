import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../errors.js';
import { errorResponse } from './error-handler.js';
import { MAX_BODY_BYTES, readJson } from './json-body.js';

const app = new Hono()
  .post('/echo', async (c) => c.json({ data: await readJson(c) }))
  .onError((error, c) => errorResponse(c as never, error as ApiError));

const send = (body: BodyInit, type: string | null = 'application/json') =>
  app.request('/echo', { method: 'POST', body, headers: type ? { 'content-type': type } : {} });

describe('readJson', () => {
  it('parses JSON sent as application/json, with or without a charset', async () => {
    expect(await (await send('{"a":1}')).json()).toEqual({ data: { a: 1 } });
    expect((await send('{"a":"ñ"}', 'application/json; charset=utf-8')).status).toBe(200);
  });

  it('refuses a missing or other content type, invalid JSON and invalid UTF-8 with 400 invalid_json', async () => {
    for (const res of [
      await send('{"a":1}', null),
      await send('{"a":1}', 'text/plain'),
      await send('{"a":'),
      await send(''),
      await send(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
    ]) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('invalid_json');
    }
  });

  it('refuses bodies over 64 KiB with 413 payload_too_large, by length or by content', async () => {
    const big = JSON.stringify({ a: 'x'.repeat(MAX_BODY_BYTES) });
    const res = await send(big);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
    const exact = JSON.stringify({ a: 'x'.repeat(MAX_BODY_BYTES - 10) });
    expect((await send(exact)).status).toBe(200);
  });
});
