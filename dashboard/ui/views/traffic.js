import { h } from '../dom.js'

/**
 * Which traffic the figures count, the API's `environment`: every environment but the runs of
 * `sieve simulate --send` (the default, no parameter), those runs alone, or everything.
 */
export const TRAFFIC = { '': 'without simulations', simulation: 'simulations', '*': 'all traffic' }

export const trafficParams = (traffic) => (traffic ? { environment: traffic } : {})

export function trafficPicker(current = '', onChange) {
  return h(
    'div',
    { class: 'segmented', role: 'group', 'aria-label': 'traffic' },
    Object.entries(TRAFFIC).map(([value, label]) =>
      h('button', { class: value === current ? 'on' : '', 'data-traffic': value, onclick: () => onChange(value) }, label),
    ),
  )
}
