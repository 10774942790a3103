/** A ClickHouse identifier in backquotes, for names statements cannot take as parameters. */
export const quoteIdentifier = (name: string): string => `\`${name.replace(/`/g, '``')}\``
