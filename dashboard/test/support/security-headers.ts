import assert from 'node:assert/strict'

/**
 * Asserts the headers every /ui and /api response (and the redirect at /) carries: no sniffing, no
 * framing, no referrer, and a policy that allows nothing inline, evaluated, or from elsewhere.
 * Whatever is under /ui gets the UI's policy; everything else loads nothing.
 */
export async function assertSecurityHeaders(url: string): Promise<void> {
  const res = await fetch(url, { redirect: 'manual' })
  await res.arrayBuffer()
  const where = `${url} (${res.status})`
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', where)
  assert.equal(res.headers.get('x-frame-options'), 'DENY', where)
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer', where)
  const csp = res.headers.get('content-security-policy') ?? ''
  assert.match(csp, /(^|; )frame-ancestors 'none'(;|$)/, `CSP of ${where}`)
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|data:|blob:|\*|https?:/, `CSP of ${where}`)
  const ui = /^\/ui(\/|$)/.test(new URL(url).pathname)
  assert.match(
    csp,
    ui ? /^default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self';/ : /^default-src 'none'; frame-ancestors/,
    `CSP of ${where}`,
  )
}
