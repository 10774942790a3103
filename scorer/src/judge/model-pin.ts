/**
 * A judge model must be a pinned snapshot: an alias ("gpt-4o", "...-latest") moves under you and
 * silently changes every score after the move. Pinned means the name carries a date
 * (2024-08-06, 20241022) or a numbered revision (-002), and no "latest".
 */
export function isPinnedModel(model: string): boolean {
  if (/latest/i.test(model)) return false
  return /(?:^|[^0-9])(?:\d{4}-\d{2}-\d{2}|\d{8})(?:[^0-9]|$)/.test(model) || /-\d{3}$/.test(model)
}
