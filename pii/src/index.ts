/**
 * PII detection, in one place for every part of Sieve that needs it: the dataset scrubber uses all
 * detectors, the scorer's pii_echo check compares what a few of them find in user and assistant text.
 * A package of its own, so that parts that never look for PII neither load nor install it (its name
 * lexicon is built from faker's and compromise's dictionaries).
 */
export { builtInDetectors, BUILT_IN_TYPES, type BuiltInType } from './detectors/index.js'
export { before, groupSpan, matchAll, type Detector, type Finding } from './finding.js'
export { ibanValid, luhnValid } from './checksums.js'
export { nameLexicon, type NameLexicon } from './name-lexicon.js'
export { resolve } from './resolve.js'
export { detectPii, detectPiiEach } from './detect.js'
export { TextScan } from './text-scan.js'
