import type { Socket } from 'node:net';
import type { HttpLimits } from '../config.ts';

type ClientError = Error & { code?: string };

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers too large, the request not
 * received in time, a malformed request line): answered with the specification's error body, as a
 * 400 (the error codes have no 408 or 431), then the connection is closed. A socket already gone or
 * reset is just destroyed.
 */
export function clientErrorHandler(limits: HttpLimits) {
  return (error: ClientError, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: messageOf(error, limits),
      details: [],
    });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}

function messageOf(error: ClientError, limits: HttpLimits): string {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return `Request headers are larger than the limit of ${limits.maxHeaderBytes} bytes`;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return `The request was not received in full within ${limits.requestTimeoutMs / 1000} s (headers within ${limits.headersTimeoutMs / 1000} s)`;
    default:
      return 'Malformed HTTP request';
  }
}
