/** Asking the service about a key without spending a credit: a request without `network_url` (a 400 means valid). */
import type { Platform } from '../core/ports';
import { keyCheckOutcome } from './contract';
import type { KeyCheck } from './result';

export function askAboutKey(
  platform: Pick<Platform, 'config' | 'transport' | 'clock'>,
  key: string,
): KeyCheck | { config: string } {
  const config = platform.config();
  if (!config.endpoint.ok) return { config: config.endpoint.message };
  const answer = platform.transport.checkKey({ apiKey: key, endpoint: config.endpoint.endpoint });
  const error = keyCheckOutcome(answer, key, platform.clock.now());
  if (!error) return { valid: true };
  if (error.error === 'unauthorized') return { valid: false, message: error.said ?? 'Unauthorized' };
  return error;
}
