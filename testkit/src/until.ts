/** Polls `check` every 100 ms until it holds; fails naming `what` after `limitMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, limitMs = 90_000): Promise<void> {
  const end = Date.now() + limitMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
