/**
 * What the benchmarks share (`npm run bench:*`): OTLP load built with the OpenTelemetry SDK, a sender
 * with bounded concurrency, `sieve up` run as a child process, CPU time read per thread from /proc,
 * and the storage ceiling: the same spans inserted raw into the engine.
 */
export * from './fresh-ids.js'
export * from './genai-batch.js'
export * from './post-otlp.js'
export * from './sieve-up.js'
export * from './thread-cpu.js'
export * from './support-trace.js'
export * from './storage-ceiling.js'
export * from './cpu-profile.js'
