import { SETTINGS_PATH } from '../core/product';
import { type ServiceError, withAdvice } from '../lookup/result';
import type { HaltReason } from './jobMachine';

export function haltOf(error: ServiceError): { reason: HaltReason; message: string } {
  switch (error.error) {
    case 'payment_required':
      return {
        reason: 'out_of_credits',
        message: withAdvice(
          error,
          'Rows not yet processed stay empty. Add credits to your account, then Resume.',
        ),
      };
    case 'unauthorized':
    case 'missing_key':
      return {
        reason: error.error === 'unauthorized' ? 'key_rejected' : 'no_key',
        message: withAdvice(error, `Save a valid key in ${SETTINGS_PATH}, then Resume.`),
      };
    case 'quota':
      return {
        reason: 'quota',
        message: withAdvice(
          error,
          'Google allows about 20,000 web requests a day for a consumer account (100,000 for Google Workspace). Wait until it resets, then Resume in the Progress tab.',
        ),
      };
    case 'endpoint_not_found':
    case 'config':
      return { reason: 'configuration', message: error.message };
    default:
      return { reason: error.effect === 'stop' ? 'configuration' : 'error', message: error.message };
  }
}
