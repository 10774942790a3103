import { matchAll, type Detector } from '../finding.js'

const EMAIL = /(?<![\p{L}\p{N}._%+:/-])[\p{L}\p{N}._%+-]+@(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}(?![\p{L}\p{N}-])/gu

export const email: Detector = {
  type: 'EMAIL',
  priority: 8,
  find: (text) => (text.includes('@') ? matchAll(text, EMAIL, 'EMAIL') : []),
}
