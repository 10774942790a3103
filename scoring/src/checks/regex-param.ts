import { z } from 'zod'

/** A regular expression given as text in config; an invalid one is a config error with the reason. */
export const regexParam = z.string().superRefine((source, ctx) => {
  try {
    new RegExp(source, 'u')
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(err as Error).message}` })
  }
})
