/**
 * The server functions the sidebar calls (src/main.ts's exports) and the shapes they return (src/api.ts): types
 * only, nothing of the server reaches the page's bundle.
 */

export type * from '../api';

import type * as Main from '../main';

/**
 * The server functions the sidebar may call: src/main.ts's exports themselves (a type-only import, never bundled
 * into the page), so a renamed function, a changed argument or return type fails the type check here.
 */
export type ServerApi = typeof Main;

/** The sidebar's tabs. The page may open on `plan` or `retry`: the Progress tab, showing a run's plan first. */
export type View = 'settings' | 'progress' | 'credits' | 'watch';
