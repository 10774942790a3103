/** Luhn (mod 10) over a string of digits: the check every payment card number carries. */
export function luhnValid(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}

/** ISO 13616 IBAN check: move the first four characters to the end, letters to 10..35, remainder mod 97 is 1. */
export function ibanValid(iban: string): boolean {
  const s = (iban.slice(4) + iban.slice(0, 4)).toUpperCase()
  let rest = 0
  for (const ch of s) {
    const code = ch.charCodeAt(0)
    const value = code >= 65 ? code - 55 : code - 48
    rest = value >= 10 ? (rest * 100 + value) % 97 : (rest * 10 + value) % 97
  }
  return rest === 1
}
