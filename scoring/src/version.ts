import { readFileSync } from 'node:fs'

/** This package's version, stamped on what it measures (eval reports); read from src/ and dist/ alike. */
export const SCORER_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version
