import { h } from '../dom.js'

/** The time-range picker shared by the views: presets over the last hour to the last 30 days. */
export const RANGES = { '1h': 3600e3, '24h': 86400e3, '7d': 7 * 86400e3, '30d': 30 * 86400e3 }

/**
 * The range a view opens with when none is asked for: the smallest preset that holds every trace of
 * the last 30 days (fresh data fills an hour's chart instead of one spike at the edge of a day's);
 * a day when there is none.
 */
export function defaultRange(oldestTrace) {
  if (!oldestTrace) return '24h'
  const age = Date.now() - Date.parse(oldestTrace)
  return Object.keys(RANGES).find((r) => age <= RANGES[r]) ?? '30d'
}

export function rangeParams(range = '24h') {
  const to = Date.now()
  return { from: new Date(to - (RANGES[range] ?? RANGES['24h'])).toISOString(), to: new Date(to).toISOString() }
}

export function rangePicker(current, onChange) {
  return h(
    'div',
    { class: 'segmented', role: 'group', 'aria-label': 'time range' },
    Object.keys(RANGES).map((r) => h('button', { class: r === current ? 'on' : '', onclick: () => onChange(r) }, r)),
  )
}
