/** A gate that cannot give a verdict for reasons of setup (dataset, agent, judge, cost ceiling): exit 2. */
export class GateConfigError extends Error {
  readonly code = 'EVAL_CONFIG'
}
