import type { IncomingMessage } from 'node:http'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { badRequest, shed, tooLarge, type ReceiverError } from './receiver-error.js'

const gunzipAsync = promisify(gunzip)

/**
 * The request body, at most `maxBytes` on the wire. Past the limit it answers 413 at once and
 * discards the rest as it arrives, so the sender can still read the answer. `admit` is asked for
 * room for the body's bytes before they are kept: for the declared Content-Length at once, or chunk
 * by chunk when none is declared; refused, the request is a 429 and the rest is discarded the same way.
 */
export function readBody(req: IncomingMessage, maxBytes: number, admit: (bytes: number) => boolean = () => true): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const header = req.headers['content-length']
    const declared = Number(header)
    const refuse = (error: ReceiverError) => {
      refused = true
      chunks.length = 0
      reject(error)
    }
    const chunks: Buffer[] = []
    let refused = false
    if (declared > maxBytes) refuse(tooLarge(`body of ${declared} bytes exceeds the limit of ${maxBytes} bytes`))
    else if (header !== undefined && !admit(declared)) refuse(shed())
    let size = 0
    req.on('data', (chunk: Buffer) => {
      if (refused) return
      size += chunk.length
      if (size > maxBytes) refuse(tooLarge(`body exceeds the limit of ${maxBytes} bytes`))
      else if (header === undefined && !admit(chunk.length)) refuse(shed())
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks, size)))
    req.on('error', (err) => reject(badRequest(`request body could not be read: ${err.message}`)))
  })
}

/** Inflates a gzip body, stopping as soon as it outgrows `maxBytes` (a gzip bomb is never inflated whole). */
export async function gunzipBody(body: Buffer, maxBytes: number): Promise<Buffer> {
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBytes })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw tooLarge(`decompressed body exceeds the limit of ${maxBytes} bytes`)
    }
    throw badRequest(`body is not valid gzip: ${(err as Error).message}`)
  }
}
