import { groupSpan, matchAll, type Detector, type Finding } from '../finding.js'

/** `scheme://user:password@host`: the user-info part is replaced, the host kept for context. */
const USERINFO = /\b[a-z][a-z0-9+.-]*:\/\/([^\s/@:]+(?::[^\s/@]*)?)@[^\s/]+/dgi

/**
 * Query parameters whose values are secrets or identify a person. Values that are already
 * found by another detector (an email in `?email=`) are settled by resolution; this catches the
 * rest (`?token=…`, `?name=…`).
 */
const PARAM =
  /[?&;](?:access_token|id_token|refresh_token|token|api_?key|key|secret|password|passwd|pwd|sig|signature|session(?:_?id)?|sid|auth|code|email|e-mail|mail|phone|tel|mobile|name|first_?name|last_?name|full_?name|user(?:name)?|login|ssn|dob|birth_?date|address|street|zip|postcode)=([^&#\s"'<>]+)/dgi

export const url: Detector = {
  type: 'URL_CREDENTIALS',
  priority: 9,
  find(text) {
    if (!text.includes('://') && !text.includes('=')) return []
    const found: Finding[] = matchAll(text, USERINFO, 'URL_CREDENTIALS', (m) => groupSpan(m, 1))
    found.push(...matchAll(text, PARAM, 'URL_PARAM', (m) => groupSpan(m, 1)))
    return found
  },
}
