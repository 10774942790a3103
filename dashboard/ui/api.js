/** Calls the dashboard API with the API key the user entered (kept in this browser only). */
const KEY = 'sieve.apiKey'

export const apiKey = {
  get: () => localStorage.getItem(KEY) ?? '',
  set: (value) => (value ? localStorage.setItem(KEY, value) : localStorage.removeItem(KEY)),
}

async function call(method, path, body, { text = false } = {}) {
  const headers = {}
  if (apiKey.get()) headers['x-api-key'] = apiKey.get()
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`../api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  if (res.ok && text) return res.text()
  const data = await res.json().catch(() => ({}))
  if (!res.ok) throw new Error(data?.error?.message ? `${data.error.message} (HTTP ${res.status})` : `HTTP ${res.status}`)
  return data
}

const withQuery = (path, params) => {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== ''))
  return `${path}${query.size ? `?${query}` : ''}`
}

export const get = (path, params = {}) => call('GET', withQuery(path, params))
/** A route that answers text (the labels' JSONL). */
export const getText = (path, params = {}) => call('GET', withQuery(path, params), undefined, { text: true })
export const post = (path, body) => call('POST', path, body)

/**
 * The reviewer's name, recorded with each label beside the API key's project (kept in this
 * browser only, like the key): what tells a second labeller from the first.
 */
const REVIEWER = 'sieve.reviewer'

export const reviewerName = {
  get: () => localStorage.getItem(REVIEWER) ?? '',
  set: (value) => (value ? localStorage.setItem(REVIEWER, value) : localStorage.removeItem(REVIEWER)),
}
