/**
 * An id made of a time and a random part (base 36): unique enough for a job, a lease token or a record name that
 * one spreadsheet's executions create, and sortable by time. `spread` sets the random part's range (a job's id,
 * shown in the credits log, is kept short).
 */
export function timeId(now: number, spread = 1e9): string {
  return now.toString(36) + Math.floor(Math.random() * spread).toString(36);
}
