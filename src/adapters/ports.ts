/** The lookup pipeline's ports over the real Apps Script services. */
import type { LookupPorts } from '../core/ports';
import { systemClock } from './clock';
import { documentCache } from './documentCache';
import { fetchTransport } from './http';
import { documentLock } from './lock';
import { PropertiesResultStore } from './resultStore';

export function servicePorts(): LookupPorts {
  return {
    store: new PropertiesResultStore(),
    cache: documentCache(),
    lock: documentLock,
    clock: systemClock,
    transport: fetchTransport,
  };
}
