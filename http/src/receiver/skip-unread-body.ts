import type { IncomingMessage } from 'node:http'

/*
 * A request answered before its body was read (shed with a 429, refused with a 401, 413 or 415)
 * still has to be read to its end, or the sender, still writing, would see its connection reset
 * instead of the answer. Node reads the rest and drops it, but only after copying every chunk into
 * a Buffer and calling into JavaScript with it: under overload (2 MB bodies, ~300 refused a second)
 * that was a third to a half of the main thread. Node's HTTP parser calls back with
 * a body chunk only while its body callback is a function (node_http_parser.cc, `on_body`), so this
 * takes the callback off the connection's parser until the message ends and the rest goes by in
 * the parser alone: 0.38 ms of CPU for a refused 2 MB body against 1.24-1.88 with Node's own discard.
 *
 * Parsers are pooled and reused across connections, so the callback goes back when the message
 * completes, and when the connection closes first (a sender giving up mid-body). The parser's slots
 * are found by the names Node gives its callbacks (`_http_common.js`); on a Node where they are
 * not found, nothing is changed and Node's own discard runs.
 */

type Parser = Record<number, unknown> & { incoming?: unknown }
type Callback = (this: unknown, ...args: unknown[]) => unknown

interface Slots {
  body: number
  complete: number
}

/** The parser's slots for its body and message-complete callbacks; `null` once looked for and not found. */
let slots: Slots | null | undefined

function slotsOf(parser: Parser): Slots | null {
  if (slots !== undefined) return slots
  let body = -1
  let complete = -1
  for (let i = 0; i < 16; i++) {
    const callback = parser[i]
    if (typeof callback !== 'function') continue
    if (callback.name === 'parserOnBody') body = i
    else if (callback.name === 'parserOnMessageComplete') complete = i
  }
  slots = body >= 0 && complete >= 0 ? { body, complete } : null
  return slots
}

/** The rest of `req`'s body, never to be read, passes without becoming Buffers or JavaScript calls. */
export function skipUnreadBody(req: IncomingMessage): void {
  if (req.complete) return
  const socket = req.socket as (typeof req.socket & { parser?: Parser | null }) | null
  const parser = socket?.parser
  // With pipelined requests the parser may already be on a later message.
  if (!socket || !parser || parser.incoming !== req) return
  const where = slotsOf(parser)
  if (!where) return
  const onBody = parser[where.body]
  const onComplete = parser[where.complete]
  // Already skipping this message.
  if (typeof onBody !== 'function' || typeof onComplete !== 'function') return
  const restore = () => {
    parser[where.body] = onBody
    parser[where.complete] = onComplete
  }
  socket.once('close', restore)
  parser[where.body] = null
  parser[where.complete] = function (this: unknown, ...args: unknown[]) {
    socket.removeListener('close', restore)
    restore()
    return (onComplete as Callback).apply(this, args)
  }
}
