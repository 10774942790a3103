import { post } from '../api.js'
import { errorBox, h, when } from '../dom.js'

const SWITCHES = [
  ['panelDisagreement', 'the judges of a panel disagreed'],
  ['unverifiedEvidence', 'its evidence was not found in the trace'],
  ['untrustedDimensions', 'a dimension judged is untrusted'],
  ['tooFewLabels', 'a dimension judged has too few labels'],
]
const NUMBERS = [
  ['randomShare', 'Share of every judged trace', { min: 0, max: 1, step: 0.01 }],
  ['secondLabeller', 'Share of labelled traces offered to a second reviewer', { min: 0, max: 1, step: 0.01 }],
  ['maxOpen', 'Stop adding once this many wait for a first label', { min: 1, max: 100000, step: 1 }],
]

/**
 * The form of a queue's rules (GET /api/review/rules): what puts a judged trace in the queue. Saving
 * makes a new version (POST /api/review/rules); the judge reads it within seconds.
 */
export function rulesForm(info, reviewer, onSaved) {
  const current = info.inEffect
  const inputs = new Map()
  const switches = SWITCHES.map(([key, text]) => {
    const input = h('input', { type: 'checkbox', name: key, checked: current.rules[key] })
    inputs.set(key, () => input.checked)
    return h('label', { class: 'rule' }, input, ` ${text}`)
  })
  const numbers = NUMBERS.map(([key, text, range]) => {
    const input = h('input', { type: 'number', name: key, value: current.rules[key], ...range })
    inputs.set(key, () => Number(input.value))
    return h('label', { class: 'rule' }, text, ' ', input)
  })
  const status = h('span', { class: 'status', role: 'status' })
  const save = h('button', { class: 'primary', type: 'submit' }, 'Save as a new version')
  const form = h(
    'form',
    {
      class: 'rules-form',
      onsubmit: async (e) => {
        e.preventDefault()
        if (!reviewer) return status.replaceChildren(errorBox(new Error('Enter your reviewer name above: it is recorded with the rules.')))
        save.disabled = true
        try {
          const rules = Object.fromEntries([...inputs].map(([key, read]) => [key, read()]))
          const saved = await post('/review/rules', { rubric: info.rubric, reviewer, rules })
          status.replaceChildren(`Saved as version ${saved.version}.`)
          onSaved?.(saved)
        } catch (err) {
          status.replaceChildren(errorBox(err))
        } finally {
          save.disabled = false
        }
      },
    },
    h('p', {}, 'A judged trace enters this queue when:'),
    switches,
    numbers,
    h('div', { class: 'actions' }, save, status),
  )
  const origin = current.source === 'config' ? "the config file's review section" : `saved by ${current.author}, ${when(current.savedAt)}`
  return h(
    'details',
    { class: 'review-rules' },
    h('summary', {}, `Rules of this queue: version ${current.version} (${origin})`),
    form,
    info.history.length
      ? h(
          'ul',
          { class: 'meta' },
          info.history.map((v) => h('li', {}, `version ${v.version}: ${v.author}, ${when(v.savedAt)}`)),
        )
      : null,
  )
}
