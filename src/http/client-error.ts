import { randomUUID } from 'node:crypto'
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Logger } from 'pino'
import { ERRORS } from '../errors'

/**
 * Node answers requests it cannot parse (headers over its limit, malformed request lines) itself,
 * with a bare status line, before Hono sees them. These get the envelope like every other
 * answer: HTTP 431 or 400 with the 400 envelope and a request id. Node-only (the edge has no
 * such layer).
 */
export function answerClientErrors(server: Pick<Server, 'on'>, logger: Pick<Logger, 'warn'>) {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    const [status, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, `request headers exceed ${maxHeaderSize} bytes`]
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'request not received in time']
          : [400, 'malformed HTTP request']
    const requestId = randomUUID()
    const body = JSON.stringify({
      code: ERRORS.BAD_REQUEST.code,
      message,
      success: false,
      data: null,
    })
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=UTF-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    )
    logger.warn({ requestId, err: err.code ?? err.message, status }, 'unparsable HTTP request')
  })
}
