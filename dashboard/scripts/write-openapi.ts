import { writeFileSync } from 'node:fs'
import { openApiDocument } from '../src/openapi.js'

/** `npm run openapi`: writes the committed copy of the document the server serves at /api/openapi.json. */
const path = new URL('../openapi.json', import.meta.url)
writeFileSync(path, `${JSON.stringify(openApiDocument(), null, 2)}\n`)
console.log(`wrote ${path.pathname}`)
