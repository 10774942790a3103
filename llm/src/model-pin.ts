/**
 * A judge model must be a pinned snapshot: an alias ("gpt-4o", "...-latest") moves under you and
 * silently changes every score after the move. Vendors pin by date or revision, each their own way;
 * a name is pinned when it carries one of these and says nothing of "latest":
 *
 * - a full date anywhere, between separators: `-2024-08-06` (OpenAI), `-20241022` (Anthropic),
 *   `@20241022` (Vertex AI), `-20241022-v2:0` (Bedrock);
 * - a short date as the last part, or before a trailing `preview`: `-0613`, `-0125` (OpenAI's
 *   MMDD), `-2407` (Mistral's YYMM), `-1106-preview`; a month-day after `preview` or `exp`
 *   (`gemini-2.5-pro-preview-05-06`), a month-year at the end (`command-r-08-2024`);
 * - a numbered revision at the end: `-002` (Google), `-v1:0` (Bedrock).
 *
 * Names that carry no date (a self-hosted model) are pinned by the operator with `judge.pinned: true`.
 */
const SEP = '[-@_.:/]'
const MONTH = '(?:0[1-9]|1[0-2])'
const DAY = '(?:0[1-9]|[12]\\d|3[01])'
const YEAR = '20[2-3]\\d'
/** 2020-2039, two digits: older snapshots than that are not judges anyone pins today. */
const YY = '[23]\\d'

const FULL_DATE = new RegExp(`(?:^|${SEP})${YEAR}(?:-${MONTH}-${DAY}|${MONTH}${DAY})(?=$|${SEP})`)
const SHORT_DATE = new RegExp(`-(?:${MONTH}${DAY}|${YY}${MONTH})(?:(?:-[a-z]+)*-preview)?$`)
const PREVIEW_MONTH_DAY = new RegExp(`-(?:preview|exp)-${MONTH}-${DAY}$`)
const MONTH_YEAR = new RegExp(`-${MONTH}-${YEAR}$`)
const REVISION = /(?:-0\d\d|-v\d+:\d+)$/

export function isPinnedModel(model: string): boolean {
  const name = model.toLowerCase()
  if (name.includes('latest')) return false
  return FULL_DATE.test(name) || SHORT_DATE.test(name) || PREVIEW_MONTH_DAY.test(name) || MONTH_YEAR.test(name) || REVISION.test(name)
}

/** Who a pinned model serves, as advice about it names the settings: `judge`, JUDGE_ALLOW_MODEL_ALIAS, `judge.pinned`. */
export interface PinSettings {
  role: string
  /** The variable that accepts an alias anyway. */
  allowVariable: string
  /** The config-file key that pins a self-hosted model (and, set, its value). */
  pinnedKey: string
  pinned: boolean
}

/** Why `model` may not serve as a pinned model, or undefined when it may (see isPinnedModel). */
export function aliasProblem(model: string, s: PinSettings): string | undefined {
  if (/latest/i.test(model))
    return `${s.role} model '${model}' is an alias, not a pinned version: 'latest' moves under you; pin a dated version (e.g. gpt-4o-2024-08-06), or set ${s.allowVariable}=true to accept score drift`
  if (s.pinned || isPinnedModel(model)) return undefined
  return (
    `${s.role} model '${model}' is an alias, not a pinned version (e.g. gpt-4o-2024-08-06, claude-sonnet-4-20250514, mistral-large-2407); pin it, ` +
    `or, for a self-hosted model whose names carry no date, set ${s.pinnedKey}: true in the config file; or set ${s.allowVariable}=true to accept score drift`
  )
}
