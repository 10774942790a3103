/** Small DOM and formatting helpers shared by the views. */

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else if (k === 'class') el.className = v
    // Through CSSOM: the UI's Content-Security-Policy refuses style attributes, not el.style.
    else if (k === 'style') el.style.cssText = v
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return el
}

/** "1 trace", "3 traces": a count with its noun. */
export const plural = (n, one, many = `${one}s`) => `${num(n)} ${Number(n) === 1 ? one : many}`
export const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`)
export const num = (x) => (x === null || x === undefined ? '–' : Number(x).toLocaleString('en-US', { maximumFractionDigits: 3 }))
export const ms = (x) => (x === null || x === undefined ? '–' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`)
export const when = (iso) => new Date(iso).toISOString().replace('T', ' ').slice(0, 19)

/** Pretty JSON for a value that may be a JSON string. */
export function pretty(value) {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2)
    } catch {
      return value
    }
  }
  return JSON.stringify(value, null, 2)
}

export function badge(passed, text) {
  return h('span', { class: `badge ${passed ? 'pass' : 'fail'}` }, text ?? (passed ? 'pass' : 'fail'))
}

export function errorBox(err) {
  return h('div', { class: 'error', role: 'alert' }, err.message ?? String(err))
}
