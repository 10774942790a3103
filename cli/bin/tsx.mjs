// Registers tsx for bin/sieve. `node --import tsx` would look for tsx from the caller's working
// directory; imported from this file, it is found from the CLI's own node_modules chain.
try {
  await import('tsx')
} catch (err) {
  // The sources are here but the dev dependencies are not (`npm ci --omit=dev` in a checkout).
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !/'tsx'/.test(err.message)) throw err
  console.error(
    'sieve: tsx is not installed, so the TypeScript sources cannot run: `npm ci` installs it; or run the build: `npm run build`, then SIEVE_FROM_DIST=1',
  )
  process.exit(2)
}
