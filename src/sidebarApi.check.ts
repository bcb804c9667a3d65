/**
 * Type test, never bundled: the sidebar's ServerApi (src/sidebar/types.ts, checked with the DOM types) must
 * match the entry points of src/main.ts (checked with the Apps Script types). `npm run typecheck` fails here
 * when they drift: a function missing or renamed, a return type changed, an argument the server does not take.
 */
import type * as Main from './main';
import type { ServerApi } from './sidebar/types';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

type Drift = {
  [K in keyof ServerApi]: K extends keyof typeof Main
    ? Same<ReturnType<(typeof Main)[K]>, ReturnType<ServerApi[K]>> extends true
      ? Parameters<ServerApi[K]> extends Parameters<(typeof Main)[K]>
        ? never
        : `${K}: the sidebar passes arguments the server does not take`
      : `${K}: the return types differ`
    : `${K}: not an entry point of src/main.ts`;
}[keyof ServerApi];

/** `never` when the sidebar and the server agree; otherwise the compiler names the drift. */
export const sidebarApiDrift: [Drift] extends [never] ? true : Drift = true;
