import { get, getText, reviewerName } from '../api.js'
import { errorBox, h, plural } from '../dom.js'
import { calibrationPanel } from './calibration.js'
import { conversationPanel } from './conversation.js'
import { reviewSession } from './review-session.js'
import { rulesForm } from './review-rules.js'

/**
 * The review page, `#/review?rubric=<id>`: one trace of the queue at a time, its conversation as the
 * trace page shows it, the rubric's dimensions with their anchored levels. Keyboard first: a number
 * gives the highlighted dimension that level and moves on, the last one stores the label; `n` skips,
 * `u` undoes, Enter goes on once the judge's verdict is shown. The verdict is never asked for before
 * the reviewer's own label is stored: the label is theirs alone.
 */
export async function reviewView({ params, navigate }) {
  const reviewer = reviewerName.get()
  const { queues } = await get('/review/queues', { reviewer })
  const rubric = params.rubric ?? (queues.find((q) => q.waiting > 0) ?? queues.find((q) => q.items > 0) ?? queues[0]).rubric
  const [rules, calibration] = await Promise.all([get('/review/rules', { rubric }), get('/review/calibration', { rubric })])

  const nameInput = h('input', { name: 'reviewer', value: reviewer, placeholder: 'your name', maxlength: 64, autocomplete: 'name' })
  nameInput.addEventListener('change', () => {
    reviewerName.set(nameInput.value.trim())
    // The same address: the page is drawn again for the new name.
    dispatchEvent(new HashChangeEvent('hashchange'))
  })
  const picker = h(
    'select',
    { name: 'rubric', onchange: (e) => navigate('/review', { rubric: e.target.value }) },
    queues.map((q) =>
      h(
        'option',
        { value: q.rubric, selected: q.rubric === rubric },
        `${q.title} (${q.rubric}): ${reviewer ? `${q.waiting} waiting for you, ` : ''}${q.items} in the queue`,
      ),
    ),
  )
  const remaining = h('span', { class: 'remaining meta' })
  // The picker's count of this queue follows the reviewer's progress.
  const counted = (waiting) => {
    const option = picker.selectedOptions[0]
    const q = queues.find((x) => x.rubric === rubric)
    if (option && q) option.textContent = `${q.title} (${q.rubric}): ${waiting} waiting for you, ${q.items} in the queue`
  }
  // Saved rules are read again, so the form says the version now in effect.
  const rulesBox = h(
    'div',
    {},
    rulesForm(rules, reviewer, async function reread() {
      rulesBox.replaceChildren(rulesForm(await get('/review/rules', { rubric }), reviewer, reread))
      rulesBox.querySelector('details').open = true
    }),
  )
  const stage = h('div', { class: 'review-stage' })
  let calibrationBox = calibrationPanel(calibration)
  const showCalibration = (view) => {
    const next = calibrationPanel(view)
    calibrationBox.replaceWith(next)
    calibrationBox = next
  }
  const exportBox = h('div', { class: 'labels-export' })
  const exportButton = h('button', {}, 'Export labels (JSONL)')
  exportButton.addEventListener('click', async () => {
    try {
      const text = await getText('/review/labels.jsonl', { rubric })
      const lines = text ? text.trimEnd().split('\n').length : 0
      exportBox.replaceChildren(
        h(
          'p',
          { class: 'meta' },
          `${plural(lines, 'labelled trace')}, as sieve judge calibrate --labels takes them (also GET /api/review/labels.jsonl?rubric=${rubric}):`,
        ),
        h('pre', { class: 'labels-jsonl' }, text || '(no labels yet)'),
      )
    } catch (err) {
      exportBox.replaceChildren(errorBox(err))
    }
  })

  const root = h(
    'div',
    { class: 'review' },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Review'), h('label', {}, 'Queue ', picker), h('label', {}, 'Reviewer ', nameInput), remaining),
    h(
      'p',
      { class: 'keys-hint meta' },
      'Keys: a number gives the highlighted dimension that level · ↑ ↓ move between dimensions · c writes a note · n skips · u undoes · Enter goes on',
    ),
    stage,
    calibrationBox,
    rulesBox,
    h('details', { class: 'review-labels' }, h('summary', {}, 'Labels of this queue'), exportButton, exportBox),
  )
  if (!reviewer) {
    stage.replaceChildren(
      h('p', { class: 'note' }, 'Enter your name as reviewer above to start: it is recorded with each label, and tells a second labeller from the first.'),
    )
    return root
  }
  reviewSession({ root, rubric, reviewer, stage, remaining, counted, showCalibration, conversationPanel })
  return root
}
