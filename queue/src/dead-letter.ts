import kafkajs, { type Message, type Producer } from 'kafkajs'

/**
 * Where records that can never be handled go, each with headers naming the error and its
 * origin (`sieve.error`, `sieve.source.topic|partition|offset`, `sieve.consumer.group`), so an
 * operator can inspect and replay them. The send must succeed before the partition moves on.
 */
export class DeadLetterSink {
  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
  ) {}

  async send(messages: Message[]): Promise<void> {
    if (messages.length === 0) return
    await this.producer.send({ topic: this.topic, acks: -1, compression: kafkajs.CompressionTypes.Snappy, messages })
  }
}
