export * from './retrying-completion.js'
export * from './http-fetch.js'
export * from './judge-error.js'
export * from './model-pin.js'
