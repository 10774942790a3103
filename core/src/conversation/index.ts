export { conversationOf, spanCausalKeys, type Conversation } from './conversation.js'
export { causalTree, walkTree, type CausalKeys, type KeysOf, type SpanNode } from './causal-order.js'
export { ContentReader } from './content-reader.js'
export { foldSpace, type Turn, type TurnRole } from './turn.js'
