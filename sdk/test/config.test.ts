import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { resolveConfig, SDK_VERSION, SdkConfigError } from '@sieve/sdk'

test('init arguments win over SIEVE_* variables, which win over OTEL_* ones', () => {
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318',
    SIEVE_ENDPOINT: 'http://sieve:4318/',
    OTEL_SERVICE_NAME: 'from-otel',
    SIEVE_API_KEY: 'k1',
    OTEL_EXPORTER_OTLP_HEADERS: 'x-team=support%20bots,x-env=prod',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    SIEVE_CAPTURE_CONTENT: 'false',
    SIEVE_MAX_QUEUE_SIZE: '100',
  }
  const config = resolveConfig({ serviceName: 'from-init' }, env)
  assert.equal(config.endpoint, 'http://sieve:4318')
  assert.equal(config.tracesUrl, 'http://sieve:4318/v1/traces')
  assert.equal(config.feedbackUrl, 'http://sieve:4318/v1/feedback')
  assert.equal(config.serviceName, 'from-init')
  assert.deepEqual(config.headers, { 'x-team': 'support bots', 'x-env': 'prod', authorization: 'Bearer k1' })
  assert.equal(config.protocol, 'http/json')
  assert.equal(config.captureContent, false)
  assert.equal(config.maxQueueSize, 100)
  assert.equal(config.maxExportBatchSize, 100)
})

test('defaults: local collector, protobuf with gzip, content not captured (opt-in), bounded queue', () => {
  const config = resolveConfig({}, {})
  assert.equal(config.tracesUrl, 'http://localhost:4318/v1/traces')
  assert.equal(config.protocol, 'http/protobuf')
  assert.equal(config.compression, 'gzip')
  assert.equal(config.captureContent, false)
  assert.equal(resolveConfig({}, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }).captureContent, true)
  assert.equal(resolveConfig({ captureContent: true }, {}).captureContent, true)
  assert.equal(config.maxQueueSize, 2048)
})

test('a bad setting is named with where it came from', () => {
  assert.throws(
    () => resolveConfig({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon', SIEVE_MAX_QUEUE_SIZE: 'lots' }),
    (err: unknown) =>
      err instanceof SdkConfigError &&
      err.problems.some((p) => p.startsWith('OTEL_EXPORTER_OTLP_PROTOCOL:')) &&
      err.problems.some((p) => p.startsWith('SIEVE_MAX_QUEUE_SIZE:')),
  )
})

test('conventions of OpenTelemetry shops: a global gRPC protocol falls back to http/protobuf; service.name from OTEL_RESOURCE_ATTRIBUTES', () => {
  assert.equal(resolveConfig({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).protocol, 'http/protobuf')
  assert.equal(resolveConfig({}, { OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=refund%20bot' }).serviceName, 'refund bot')
  assert.equal(resolveConfig({}, { OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource', OTEL_SERVICE_NAME: 'from-env' }).serviceName, 'from-env')
  assert.equal(resolveConfig({}, {}).serviceName, 'unknown_service:node')
})

test('SDK_VERSION is the published package version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  assert.equal(SDK_VERSION, pkg.version)
})
