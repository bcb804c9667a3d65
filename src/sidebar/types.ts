/** The server functions the sidebar calls and the shapes they return: types only, no server code in the page. */
export type * from '../api';

import type * as Main from '../main';

/** src/main.ts's exports themselves: a renamed function or a changed argument or return type fails the type check. */
export type ServerApi = typeof Main;

/** The sidebar's tabs. The page may open on `plan` or `retry`: the Progress tab, showing a run's plan first. */
export type View = 'settings' | 'progress' | 'credits' | 'watch';
