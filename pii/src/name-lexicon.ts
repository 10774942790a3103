import { createRequire } from 'node:module'

/**
 * The two packages are loaded on the first call, not on import: together they take tens of MB and
 * a good second to load, and processes that only need the pattern detectors (the scorer's pii_echo
 * check) never ask for names.
 */
const load = createRequire(import.meta.url)

/**
 * Word lists behind person-name detection, built once from two maintained packages:
 * - @faker-js/faker's locale data: first and last names of ~70 locales (European, Latin American,
 *   Asian in Latin script, …), so names beyond the English ones are known;
 * - compromise's English lexicon: its first/last names, and, as much as its names, the ordinary words,
 *   places and organisations it knows, which keep "Will", "May" or "Jordan" at the start of a
 *   sentence from being taken for people unless something else says so.
 */
export interface NameLexicon {
  firstNames: Set<string>
  lastNames: Set<string>
  /** Lower-case words that are also ordinary words, places or organisations. */
  common: Set<string>
  /** Words that are never part of a name (honorifics, form labels, company words), whatever the name lists say. */
  never: Set<string>
  /** Of those, the words that make the capitalised words before them an organisation ("Johnson Inc.", "Wolfram Research"). */
  organisationWords: Set<string>
}

type NameData = string[] | { [key: string]: NameData } | undefined

function collect(into: Set<string>, data: NameData): void {
  if (!data) return
  if (Array.isArray(data)) {
    for (const name of data) if (typeof name === 'string' && /^\p{Lu}[\p{L}\p{M}'’-]+$/u.test(name)) into.add(name.toLowerCase())
    return
  }
  for (const value of Object.values(data)) collect(into, value)
}

const NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName', 'LastName', 'Person', 'Honorific'])

/** Company endings and kinds of organisation; surnames are what companies are most often named after. */
const ORGANISATION_WORDS = [
  'inc',
  'llc',
  'ltd',
  'plc',
  'corp',
  'corporation',
  'company',
  'co',
  'gmbh',
  'ag',
  'bv',
  'group',
  'holdings',
  'partners',
  'associates',
  'consulting',
  'research',
  'investments',
  'capital',
  'systems',
  'software',
  'solutions',
  'technologies',
  'industries',
  'ventures',
  'labs',
  'bank',
  'insurance',
  'foundation',
  'institute',
  'university',
  'orchestra',
  'agency',
]

/** Words the lexicons miss that mark a capitalised run as something other than a person. */
const NOT_NAMES = [
  ...ORGANISATION_WORDS,
  'street',
  'road',
  'avenue',
  'lane',
  'drive',
  'court',
  'boulevard',
  'square',
  'place',
  'station',
  'park',
  'bridge',
  'sa',
  'college',
  'school',
  'hospital',
  'association',
  'society',
  'band',
  'records',
  'music',
  'news',
  'times',
  'weekly',
  'magazine',
  'club',
  'country',
  'city',
  'state',
  'north',
  'south',
  'east',
  'west',
  'central',
  'united',
  'kingdom',
  'republic',
  'national',
  'international',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'apt',
  'suite',
  'unit',
  'box',
  'user',
  'bot',
  'customer',
  'agent',
  'assistant',
  'system',
  'tool',
  'order',
  'sku',
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sir',
  'hi',
  'hello',
  'dear',
  'thanks',
  'regards',
  'name',
  'phone',
  'email',
  'address',
  'desk',
  'fax',
  'mobile',
  'e-mail',
  'website',
  'date',
  'subject',
  'note',
  'title',
  'from',
  'to',
  'cc',
  're',
  'fwd',
  "i'm",
  "i've",
  "i'll",
  "i'd",
  'ok',
  'yes',
  'no',
  'princess',
  'prince',
  'king',
  'queen',
  'lord',
  'lady',
  'saint',
  'st',
  'technology',
  'resources',
  'data',
  'services',
  'media',
  'health',
  'bioscience',
  'analytics',
  'financial',
  'enterprises',
  'networks',
  'global',
  'digital',
  'energy',
  'api',
  'http',
  'https',
  'json',
  'true',
  'false',
  'null',
  'error',
  'ok',
  'id',
  'ip',
  'url',
  'ssn',
  'iban',
  'card',
]

let cached: NameLexicon | undefined

export function nameLexicon(): NameLexicon {
  if (cached) return cached
  const firstNames = new Set<string>()
  const lastNames = new Set<string>()
  const common = new Set<string>(NOT_NAMES)
  const { allLocales } = load('@faker-js/faker') as typeof import('@faker-js/faker')
  const compromise = load('compromise') as { default?: unknown }
  const nlp = compromise.default ?? compromise
  for (const locale of Object.values(allLocales)) {
    const person = (locale as { person?: { first_name?: NameData; last_name?: NameData } }).person
    collect(firstNames, person?.first_name)
    collect(lastNames, person?.last_name)
  }
  const lexicon = (nlp as unknown as { model(): { one: { lexicon: Record<string, string | string[]> } } }).model().one.lexicon
  for (const [word, tags] of Object.entries(lexicon)) {
    const list = Array.isArray(tags) ? tags : [tags]
    if (list.some((t) => NAME_TAGS.has(t))) {
      if (list.includes('LastName')) lastNames.add(word)
      else firstNames.add(word)
    } else if (!word.includes(' ')) common.add(word)
  }
  cached = { firstNames, lastNames, common, never: new Set(NOT_NAMES), organisationWords: new Set(ORGANISATION_WORDS) }
  return cached
}
