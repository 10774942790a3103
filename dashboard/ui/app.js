import { apiKey } from './api.js'
import { errorBox, h } from './dom.js'
import { overview } from './views/overview.js'
import { compareView } from './views/compare.js'
import { worstView } from './views/worst.js'
import { traceView } from './views/trace.js'
import { sessionView } from './views/session.js'
import { reviewView } from './views/review.js'

/** Hash routes: #/ overview, #/compare, #/worst, #/trace/<id>, #/sessions/<id>, #/review; query parameters after '?'. */
const routes = [
  [/^\/?$/, 'overview', overview],
  [/^\/compare$/, 'compare', compareView],
  [/^\/worst$/, 'worst', worstView],
  [/^\/trace\/([0-9a-fA-F]{32})$/, 'worst', traceView],
  // The id as encodeURIComponent wrote it: session ids are any text.
  [/^\/sessions\/([^/]+)$/, 'worst', sessionView],
  [/^\/review$/, 'review', reviewView],
]

export function navigate(path, params = {}) {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== ''))
  location.hash = `#${path}${query.size ? `?${query}` : ''}`
}

async function render() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?')
  const params = Object.fromEntries(new URLSearchParams(query))
  const view = document.getElementById('view')
  const route = routes.find(([re]) => re.test(path))
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.nav === route?.[1])
  view.replaceChildren(h('p', { class: 'loading' }, 'Loading…'))
  if (!route) {
    view.replaceChildren(errorBox(new Error(`No page at ${path}`)))
    return
  }
  try {
    const match = route[0].exec(path)
    view.replaceChildren(await route[2]({ params, match, navigate }))
  } catch (err) {
    view.replaceChildren(errorBox(err))
  }
}

const keyInput = document.getElementById('api-key')
keyInput.value = apiKey.get()
keyInput.addEventListener('change', () => {
  apiKey.set(keyInput.value.trim())
  render()
})
addEventListener('hashchange', render)
render()
