/** The arithmetic the ingest benchmarks print. */
export const rate = (spans: number, ms: number): number => Math.round((spans / ms) * 1000)
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
export const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 50)
