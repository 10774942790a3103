/** Published with package.json's version; a test keeps the two equal. */
export const SDK_NAME = '@sieve/sdk'
export const SDK_VERSION = '0.1.0'
