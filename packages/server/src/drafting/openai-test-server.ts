import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the local model answers: text chunks, sent one by one with a pause between them. */
export interface ScriptedAnswer {
  chunks: string[];
  delayMs?: number;
  /** Drop the connection after this many chunks, as a crashed model server would. */
  breakAfter?: number;
}

/** A running local OpenAI-compatible server and what it saw. */
export interface OpenAiTestServer {
  baseURL: string;
  /** Request bodies received on /chat/completions. */
  requests: Record<string, unknown>[];
  /** How many streams ended because the client went away. */
  clientAborts: number;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 speaking the streaming chat-completions protocol of
 * OpenAI-compatible servers (SSE `chat.completion.chunk` objects, then `data: [DONE]`), for the
 * LLM drafter's tests: the drafter talks to it over real HTTP through the `ai` SDK.
 */
export async function startOpenAiTestServer(
  answer: (body: Record<string, unknown>) => ScriptedAnswer,
): Promise<OpenAiTestServer> {
  const state = { requests: [] as Record<string, unknown>[], clientAborts: 0 };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      state.requests.push(body);
      const script = answer(body);
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      let closed = false;
      res.on('close', () => {
        if (!res.writableEnded) {
          closed = true;
          state.clientAborts++;
        }
      });
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model: String(body.model), choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }, null));
      for (const [sent, text] of script.chunks.entries()) {
        if (closed) return;
        if (script.delayMs) await new Promise((r) => setTimeout(r, script.delayMs));
        if (closed) return;
        if (script.breakAfter !== undefined && sent >= script.breakAfter) {
          res.destroy();
          return;
        }
        res.write(chunk({ content: text }, null));
      }
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get clientAborts() {
      return state.clientAborts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
