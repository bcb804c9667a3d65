/** The Clock port over Date and Utilities.sleep. */
import type { Clock } from '../core/ports';

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => Utilities.sleep(ms),
};
