/** Calls the dashboard API with the API key the user entered (kept in this browser only). */
const KEY = 'sieve.apiKey'

export const apiKey = {
  get: () => localStorage.getItem(KEY) ?? '',
  set: (value) => (value ? localStorage.setItem(KEY, value) : localStorage.removeItem(KEY)),
}

async function call(method, path, body) {
  const headers = {}
  if (apiKey.get()) headers['x-api-key'] = apiKey.get()
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`../api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const data = await res.json().catch(() => ({}))
  if (!res.ok) throw new Error(data?.error?.message ? `${data.error.message} (HTTP ${res.status})` : `HTTP ${res.status}`)
  return data
}

export const get = (path, params = {}) => {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== ''))
  return call('GET', `${path}${query.size ? `?${query}` : ''}`)
}
export const post = (path, body) => call('POST', path, body)
