/** Whether this execution may write document properties: tried, not assumed (see src/formula/writeCheck.ts). */
import { isPropertiesQuotaError } from '../core/quota';

/**
 * Writes `token` into the document property `name` and reads it back. False when the write is refused (custom
 * functions: not documented either way) or reads back nothing; another token read back is another cell's check
 * written in between (cells evaluate at once), which proves writes work as well. The daily properties quota is
 * rethrown (its own message applies).
 */
export function documentPropertyWritable(name: string, token: string): boolean {
  try {
    const props = PropertiesService.getDocumentProperties();
    props.setProperty(name, token);
    return !!props.getProperty(name);
  } catch (error) {
    if (isPropertiesQuotaError(error)) throw error;
    return false;
  }
}
