import { groupSpan, matchAll, type Detector, type Finding } from '../finding.js'

/** Key formats issued by common providers; each is specific enough to take without context. */
const KNOWN_FORMATS = new RegExp(
  [
    'sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{20,}', // OpenAI, Anthropic and look-alikes
    '(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}', // Stripe
    '(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}', // AWS access key ids
    'gh[pousr]_[A-Za-z0-9]{36,}', // GitHub tokens
    'github_pat_[A-Za-z0-9_]{22,}',
    'glpat-[A-Za-z0-9_-]{20,}', // GitLab
    'xox[abposr]-[A-Za-z0-9-]{10,}', // Slack
    'AIza[0-9A-Za-z_-]{35}', // Google API keys
    'hf_[A-Za-z0-9]{30,}', // Hugging Face
    'eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*', // JWT (header.payload.signature)
    '-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----',
  ].join('|'),
  'g',
)
const BOUNDED_KNOWN = new RegExp(`(?<![A-Za-z0-9_])(?:${KNOWN_FORMATS.source})`, 'g')

/** The value after an Authorization scheme or after a key named like a secret. */
const AUTH_HEADER = /\b(?:Bearer|Basic|Token|Bot)\s+([A-Za-z0-9._~+/=-]{12,})/dgi
const ASSIGNMENT =
  /(?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|client[_-]?secret|private[_-]?key|auth|credentials?)["']?\s*[:=]\s*["']?([^\s"',;&]{6,})/dgi

/** Shannon entropy per character of a token of ASCII key characters. */
const counts = new Int32Array(128)
const order = new Int32Array(128)
function entropy(s: string): number {
  // Summed in order of first occurrence, as a Map would, so the figure is bit for bit the same.
  let distinct = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (counts[c]!++ === 0) order[distinct++] = c
  }
  let h = 0
  for (let k = 0; k < distinct; k++) {
    const c = order[k]!
    const p = counts[c]! / s.length
    h -= p * Math.log2(p)
    counts[c] = 0
  }
  return h
}

function looksGenerated(token: string): boolean {
  let upper = 0
  let lower = 0
  let digit = 0
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c >= 65 && c <= 90) upper++
    else if (c >= 97 && c <= 122) lower++
    else if (c >= 48 && c <= 57) digit++
  }
  if (upper < 2 || lower < 2 || digit < 2) return false
  // Identifiers such as getUserAccountBalanceForCustomer2024 have long lower-case runs; random tokens do not.
  if (/[a-z]{7,}/.test(token)) return false
  return entropy(token) >= 3.6
}

/** 1 for the key characters (letters, digits, '_', '-'), by UTF-16 code unit: one load instead of five comparisons. */
const KEY_CHAR = new Uint8Array(65_536)
for (const [from, to] of [
  [48, 57],
  [65, 90],
  [97, 122],
  [95, 95],
  [45, 45],
] as const)
  KEY_CHAR.fill(1, from, to + 1)

function isKeyChar(c: number): boolean {
  return KEY_CHAR[c] === 1
}

/**
 * The first run of at least `n` key characters at or after `from` (which is 0 or follows a character
 * that is not one), whole, as [start, end). Any such run starting in [i, i + n) covers position
 * i + n - 1, so where that character is not a key character the search jumps n places on: most of
 * the text is never looked at.
 */
function keyRun(text: string, n: number, from = 0): [number, number] | undefined {
  let i = from
  while (i + n <= text.length) {
    const probe = i + n - 1
    if (!isKeyChar(text.charCodeAt(probe))) {
      i = probe + 1
      continue
    }
    let start = probe
    while (start > i && isKeyChar(text.charCodeAt(start - 1))) start--
    let end = probe + 1
    while (end < text.length && isKeyChar(text.charCodeAt(end))) end++
    if (end - start >= n) return [start, end]
    i = end + 1
  }
  return undefined
}

function hasKeyRun(text: string, n: number): boolean {
  return keyRun(text, n) !== undefined
}

/** '/', '+' and '=' next to a run make it part of something else (a path, base64), not a token. */
function joined(c: number): boolean {
  return c === 47 || c === 43 || c === 61
}

/**
 * Long tokens mixing upper case, lower case and digits with high per-character entropy are
 * likely generated secrets. Pure hex (hashes, trace and span ids) and UUIDs never qualify. A token
 * is what /(?<![A-Za-z0-9_/+=-])[A-Za-z0-9_-]{24,}(?![A-Za-z0-9_/+=-])/g would match: a whole run of
 * 24 or more key characters with nothing joined on. Found by skipping (see keyRun), which reads
 * fewer characters than that regex would.
 */
function generatedTokens(text: string): Finding[] {
  const found: Finding[] = []
  for (let run = keyRun(text, 24); run; run = keyRun(text, 24, run[1] + 1)) {
    const [start, end] = run
    if (joined(text.charCodeAt(start - 1)) || joined(text.charCodeAt(end))) continue
    if (looksGenerated(text.slice(start, end))) found.push({ type: 'SECRET', start, end })
  }
  return found
}

export const secret: Detector = {
  type: 'SECRET',
  priority: 9,
  find(text, scan) {
    // Every secret shape has a run of key characters: six at least, eight for a known format
    // (eyJ + 5, -----BEGIN), 24 for a generated token.
    if (!hasKeyRun(text, 6)) return []
    const found: Finding[] = scan.mentions('KEY_PREFIX') && hasKeyRun(text, 8) ? matchAll(text, BOUNDED_KNOWN, 'SECRET') : []
    if (scan.mentions('AUTH_SCHEME') || scan.mentions('TOKEN')) found.push(...matchAll(text, AUTH_HEADER, 'SECRET', (m) => groupSpan(m, 1)))
    // The separator first: one character class, cheaper to look for than the key names.
    if (/[:=]/.test(text) && (scan.mentions('KEY_NAME') || scan.mentions('TOKEN'))) found.push(...matchAll(text, ASSIGNMENT, 'SECRET', (m) => groupSpan(m, 1)))
    found.push(...generatedTokens(text))
    return found
  },
}
