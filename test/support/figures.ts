/** The figures of a run as its progress sentence says them, to check against the counts, the box and the ledger. */

export const FIGURES = ['found', 'noAddress', 'unprocessable', 'notProfile', 'error', 'alreadyDone'] as const;
export type Figures = Record<(typeof FIGURES)[number], number>;

/**
 * The figures of "Done: 4 rows with an address, 1 row with no address, …, 2 rows already done. 7 credits used: …"
 * (a figure not said: 0).
 */
export function sentenceFigures(message: string): Figures & { credits: number } {
  const count = (words: string) => Number(new RegExp(`(\\d+) ${words}\\b`).exec(message)?.[1] ?? 0);
  return {
    found: count('rows? with an address'),
    noAddress: count('rows? with no address'),
    unprocessable: count('rows? unprocessable'),
    notProfile: count('rows? not a profile'),
    error: count('rows? with an error'),
    alreadyDone: count('rows? already done'),
    credits: count('credits? used'),
  };
}

/** Only the six figures of a progress, a summary or a sentence. */
export const figuresOf = (from: Figures): Figures =>
  Object.fromEntries(FIGURES.map((figure) => [figure, from[figure]])) as Figures;
