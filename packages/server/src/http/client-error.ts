import type { Socket } from 'node:net';
import { API_VERSION } from '../config.js';
import { ApiError } from '../errors.js';
import { requestId } from '../ids.js';
import { errorBody } from './error-handler.js';

/** Node's largest request head by default (`--max-http-header-size`), in KiB, for the message. */
const MAX_HEADER_KIB = 16;

/**
 * Node's `clientError`: a request Node could not parse (its head over 16 KiB, a malformed request
 * line, a head that never finished) never reaches the app, and Node's default answer is a bare
 * status line. This answers with the same flat JSON error body as every other 4xx, then closes
 * the connection, which can no longer be trusted to frame a next request.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // The peer is gone (or went while sending): nobody to answer.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          'Request Header Fields Too Large',
          `The request's headers are larger than ${MAX_HEADER_KIB} KiB.`,
        ]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request was not received in time.']
        : [400, 'Bad Request', 'The request is not valid HTTP.'];
  const id = requestId();
  const body = JSON.stringify(errorBody(new ApiError(status, 'invalid_request', message), id));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Service-Request-Id: ${id}\r\n` +
      `Service-Version: ${API_VERSION}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
