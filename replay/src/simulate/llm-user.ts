import { costUsd } from '@sieve/scoring'
import { completeWithRetries, JudgeError, modelClient } from '@sieve/llm'
import type { Scenario } from './scenario.js'
import type { SimulatorConfig } from './simulator-config.js'
import { noUsage, type SimulatedUser, type UserReply } from './simulated-user.js'
import { DONE } from './templates.js'
import { userMessages, type VisibleMessage } from './user-prompt.js'

/** The client of one simulator: runs share its connections, each keeps its own usage. */
export function simulatorClient(config: SimulatorConfig) {
  return { config, openai: modelClient(config) }
}

/**
 * The user played by an LLM through any OpenAI-compatible endpoint, with the judge's HTTP rules
 * (scorer's completeWithRetries). It sees the visible conversation and the scenario's persona and
 * facts, never the agent's tool calls or state; `[DONE]` means its goal is reached. An empty
 * answer is asked again once; what fails in the end is thrown as a JudgeError.
 */
export function llmUser(client: ReturnType<typeof simulatorClient>, scenario: Scenario, onSpend: (usd: number) => void = () => {}): SimulatedUser {
  const { config, openai } = client
  const usage = noUsage()
  return {
    kind: 'llm',
    usage,
    async next(visible: readonly VisibleMessage[], turn: number): Promise<UserReply> {
      const body = {
        model: config.model,
        temperature: config.temperature,
        seed: config.seed,
        max_tokens: config.maxTokens,
        messages: userMessages(scenario, visible, turn),
      }
      for (let attempt = 0; attempt < 2; attempt++) {
        const completion = await completeWithRetries(
          openai,
          body,
          config,
          { endpoint: 'simulator', what: `turn ${turn} of ${scenario.id}` },
          { onCall: () => usage.calls++ },
        )
        const inputTokens = completion.usage?.prompt_tokens ?? 0
        const outputTokens = completion.usage?.completion_tokens ?? 0
        usage.inputTokens += inputTokens
        usage.outputTokens += outputTokens
        const spent = costUsd(config.model, inputTokens, outputTokens, config.prices) ?? 0
        usage.costUsd += spent
        onSpend(spent)
        const text = (completion.choices[0]?.message?.content ?? '').trim()
        if (text.includes(DONE) && scenario.stop.userMayEnd) return { end: 'user-done' }
        // A user that may not end says what it said besides the marker, if anything.
        const said = text.replaceAll(DONE, '').trim()
        if (said) return { say: said }
      }
      throw new JudgeError('INVALID_ANSWER', `the simulator's answer to turn ${turn} of ${scenario.id} was empty, twice`)
    },
  }
}
