import type { Rubric, RubricDimension } from './rubric.js'
import type { Transcript, TranscriptTurn } from './transcript.js'

/**
 * Bump when the wording below changes: stored scores carry it, and scores of different prompt
 * versions are not compared. The snapshot tests in judging/test/ fail until the snapshots are
 * updated, which is the reminder.
 */
export const PROMPT_VERSION = '3'

export interface JudgePrompt {
  system: string
  user: string
}

const SYSTEM = [
  'You are a strict, careful evaluator of conversations between a user and an AI agent.',
  'You score exactly one dimension of one rubric, using only what the transcript shows.',
  'Each transcript entry is labelled with its turn number, the id of the span it came from and who speaks; tool calls and tool results are turns of their own.',
  'Entries labelled "history" were said before this part of the conversation began: read them as context, and score what the agent did in the entries after them.',
  'Work in this order and answer in JSON with exactly these fields, in this order:',
  '1. "evidence": the turns you rely on, each as {"turn": <number>, "span_id": "<span id>", "quote": "<short exact quote>"}; at least one. The quote must be copied word for word from the turn you cite.',
  '2. "reasoning": why the evidence puts the transcript at one level and not the level above or below it.',
  '3. "score": the level number whose anchor the transcript matches.',
  'Choose the level whose anchor is met; when two anchors seem to fit, choose the lower one.',
  'Do not reward length, confidence or politeness beyond what the dimension asks.',
].join('\n')

function renderLevels(d: RubricDimension): string {
  return [...d.levels]
    .reverse()
    .map((l) => `- ${l.score}: ${l.anchor}`)
    .join('\n')
}

const SPEAKER: Record<TranscriptTurn['role'], string> = {
  system: 'system',
  user: 'user',
  assistant: 'assistant',
  tool_call: 'assistant calls tool',
  tool_result: 'tool result',
}

function renderTurn(t: TranscriptTurn): string {
  return `[turn ${t.index} | span ${t.spanId} | ${SPEAKER[t.role]}${t.name && t.role === 'tool_result' ? ` ${t.name}` : ''}${t.history ? ' | history' : ''}]\n${t.text}`
}

export function renderTranscript(transcript: Transcript): string {
  if (transcript.turns.length === 0) return '(the trace holds no message content)'
  return transcript.turns.map(renderTurn).join('\n\n')
}

/** The two messages of one judge call: rubric dimension + transcript, nothing else. */
export function buildJudgePrompt(rubric: Rubric, dimension: RubricDimension, transcript: Transcript): JudgePrompt {
  const user = [
    `Rubric: ${rubric.title} (${rubric.id} ${rubric.version})`,
    `Dimension: ${dimension.name}`,
    `Definition: ${dimension.definition}`,
    '',
    'Levels (highest first):',
    renderLevels(dimension),
    '',
    '<transcript>',
    renderTranscript(transcript),
    '</transcript>',
    '',
    `Score the dimension "${dimension.name}". Cite, reason, then score.`,
  ].join('\n')
  return { system: SYSTEM, user }
}
