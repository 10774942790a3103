export * from './agreement.js'
export * from './calibrate.js'
export * from './labels.js'
export * from './annotations.js'
