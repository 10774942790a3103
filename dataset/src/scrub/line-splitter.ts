const LINE_END = /\r\n|\r|\n/g

/**
 * Splits text that arrives in chunks into lines as node:readline does: at '\n', '\r\n' or a lone
 * '\r'. Each chunk is scanned once, however long the line it continues.
 */
export class LineSplitter {
  private partial = ''
  /** The last chunk ended with '\r': a '\n' opening the next one belongs to that line end. */
  private afterCarriageReturn = false

  /** The lines that `chunk` completes. */
  push(chunk: string): string[] {
    const lines: string[] = []
    if (!chunk) return lines
    let at = this.afterCarriageReturn && chunk.charCodeAt(0) === 10 ? 1 : 0
    this.afterCarriageReturn = false
    LINE_END.lastIndex = at
    for (let m = LINE_END.exec(chunk); m; m = LINE_END.exec(chunk)) {
      lines.push(this.partial + chunk.slice(at, m.index))
      this.partial = ''
      at = m.index + m[0].length
      if (at === chunk.length && m[0] === '\r') this.afterCarriageReturn = true
    }
    this.partial += chunk.slice(at)
    return lines
  }

  /** What is left when the input ends: a last line without a line end, if any. */
  end(): string[] {
    const last = this.partial
    this.partial = ''
    return last ? [last] : []
  }
}
