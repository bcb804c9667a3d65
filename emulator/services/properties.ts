/** PropertiesService and Properties: the script's, the document's and the user's stores. */
import { fail } from '../errors';
import type { PropertyStore } from '../model/properties';
import type { StoreD } from '../protocol';
import { type Exec, requireAuth, type ServiceHost } from './context';

export function propertiesService(host: ServiceHost, exec: Exec, method: string): unknown {
  requireAuth(exec, `PropertiesService.${method}`);
  switch (method) {
    case 'getScriptProperties':
      return { kind: 'script' };
    case 'getDocumentProperties':
      return exec.spreadsheetId ? { kind: 'document', id: exec.spreadsheetId } : null;
    case 'getUserProperties': {
      // Custom functions: "getUserProperties() only gets the properties of the spreadsheet owner"
      // (https://developers.google.com/apps-script/guides/sheets/functions#using_apps_script_services).
      const owner =
        exec.kind === 'custom' && exec.spreadsheetId ? host.spreadsheet(exec.spreadsheetId).owner : exec.user;
      return { kind: 'user', id: owner };
    }
    default:
      return fail(`Unknown method PropertiesService.${method}`);
  }
}

function propertyStore(host: ServiceHost, d: StoreD): PropertyStore {
  if (d.kind === 'script') return host.scriptProperties;
  if (d.kind === 'document') return host.documentProperties(String(d.id));
  return host.userProperties(String(d.id));
}

export function properties(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  const d = args[0] as StoreD;
  const store = propertyStore(host, d);
  const writes = ['setProperty', 'setProperties', 'deleteProperty', 'deleteAllProperties'];
  // "Spreadsheet editors can't set user properties in a custom function" (same page).
  if (writes.includes(method) && exec.kind === 'custom' && d.kind === 'user' && d.id !== exec.user) {
    fail(`You do not have permission to call ${method}`);
  }
  // Not documented either way; the option refuses them with the text users report for a refused write.
  if (
    writes.includes(method) &&
    exec.kind === 'custom' &&
    d.kind === 'document' &&
    host.customFunctionDocumentWrites === 'refused'
  ) {
    fail(`You do not have permission to call ${method}`);
  }
  // Every read or write counts toward "Properties read/write 50,000 / day" (consumer accounts) of the user running
  // the execution (https://developers.google.com/apps-script/guides/services/quotas).
  host.chargeQuota(exec.user, 'properties', 1);
  switch (method) {
    case 'getProperty':
      return store.get(String(args[1]));
    case 'getProperties':
      return store.all();
    case 'getKeys':
      return store.keys();
    case 'setProperty':
      store.set({ [String(args[1])]: args[2] });
      return null;
    case 'setProperties':
      store.set(args[1] as Record<string, unknown>, args[2] === true);
      if (args[2] === true) host.noteStoreRewrite(exec, d.kind);
      return null;
    case 'deleteProperty':
      store.delete(String(args[1]));
      return null;
    case 'deleteAllProperties':
      store.clear();
      return null;
    default:
      return fail(`Unknown method Properties.${method}`);
  }
}
