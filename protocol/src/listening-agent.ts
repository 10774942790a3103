import type { Agent } from 'node:http'
import type { Duplex } from 'node:stream'

type CreateConnection = (options: object, callback?: (error: Error | null, socket: Duplex) => void) => Duplex | undefined

/**
 * Gives every socket `agent` opens an error listener, and returns the agent. Node's HTTP client
 * takes its listeners off a keep-alive socket when a response ends and hands the socket to the
 * pool a tick later (a TODO in Node's own `_http_client`): a peer closing the connection then (a
 * write answered `EPIPE`, a reset) would otherwise be thrown into the process as an uncaught
 * exception. The request in flight still sees the error through its own listener, and the socket
 * is destroyed as before. Used by every keep-alive agent Sieve runs: the SDK's exporter inside
 * users' agents, the judge's model client, the eval runner's agent client.
 */
export function listenOnSockets<A extends Agent>(agent: A): A {
  const pooled = agent as unknown as { createConnection: CreateConnection }
  const open = pooled.createConnection.bind(agent)
  // Node's own agents return the socket (the callback form is for agents that connect asynchronously).
  pooled.createConnection = (options, callback) => open(options, callback)?.on('error', ignoreSocketError)
  return agent
}

function ignoreSocketError(): void {}
