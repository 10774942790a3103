// Registers tsx for bin/sieve. `node --import tsx` would look for tsx from the caller's working
// directory; imported from this file, it is found from the CLI's own node_modules chain.
import 'tsx'
