import kafkajs from 'kafkajs'
import type { Config } from '@sieve/core'
import { snappyCodec } from './snappy-codec.js'

// Snappy: little CPU per byte (the collector's two cores go to parsing OTLP), a ratio of about
// 3-4x on span JSON, and every Kafka client and broker reads it. gzip compresses better but
// costs several times the CPU.
kafkajs.CompressionCodecs[kafkajs.CompressionTypes.Snappy] = snappyCodec

export type KafkaSettings = NonNullable<Config['kafka']>

// kafkajs logs every retriable protocol error (coordinator loading, rebalancing) as an ERROR;
// Sieve reports what matters itself (503s, set-up errors, consumer crashes), so only debug shows them.
const KAFKAJS_LEVEL = {
  debug: kafkajs.logLevel.INFO,
  info: kafkajs.logLevel.NOTHING,
  warn: kafkajs.logLevel.NOTHING,
  error: kafkajs.logLevel.NOTHING,
}

/** The kafkajs client every Sieve producer, consumer and admin of a process is made from. */
export function kafkaClient(kafka: KafkaSettings, logLevel: Config['logLevel'] = 'info', clientId = kafka.clientId): kafkajs.Kafka {
  return new kafkajs.Kafka({
    clientId,
    brokers: kafka.brokers,
    connectionTimeout: 2000,
    requestTimeout: 10000,
    logLevel: KAFKAJS_LEVEL[logLevel],
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2000 },
  })
}
