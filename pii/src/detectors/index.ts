import type { Detector } from '../finding.js'
import { creditCard } from './credit-card.js'
import { dateOfBirth } from './date-of-birth.js'
import { driverLicence } from './driver-licence.js'
import { email } from './email.js'
import { iban } from './iban.js'
import { ipAddress } from './ip-address.js'
import { person } from './person.js'
import { phone } from './phone.js'
import { secret } from './secret.js'
import { ssn } from './ssn.js'
import { streetAddress } from './street-address.js'
import { url } from './url.js'
import { zipCode } from './zip-code.js'

/** Every built-in detector, by the entity type it reports. */
export const builtInDetectors = {
  EMAIL: email,
  PHONE: phone,
  CREDIT_CARD: creditCard,
  IBAN: iban,
  SSN: ssn,
  IP_ADDRESS: ipAddress,
  ADDRESS: streetAddress,
  ZIP_CODE: zipCode,
  DATE_OF_BIRTH: dateOfBirth,
  DRIVER_LICENCE: driverLicence,
  SECRET: secret,
  URL_CREDENTIALS: url,
  PERSON: person,
} satisfies Record<string, Detector>

export type BuiltInType = keyof typeof builtInDetectors
export const BUILT_IN_TYPES = Object.keys(builtInDetectors) as BuiltInType[]
