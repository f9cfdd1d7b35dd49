import type { IncomingMessage, ServerResponse } from 'node:http';

/** A segment that path-to-regexp reads as plain text (no parameter, wildcard, group or escape). */
const PLAIN = /^[A-Za-z0-9_.~-]+$/;
/** How many leading segments key a route: `/api/v1/<area>/...` tells the areas apart. */
const DEPTH = 3;

interface Layer {
  route?: { path?: unknown };
}

type Handle = (req: IncomingMessage, res: ServerResponse, done: (err?: unknown) => void) => void;

/** What the index needs of the Express router (the `router` package's `Router`). */
export interface IndexableRouter {
  stack: Layer[];
  handle: Handle;
}

/**
 * The first DEPTH segments of a path, lowercased and joined by `/`, when each is plain text and another segment
 * follows (`/api/v1/lti/contexts/...` -> `api/v1/lti`); else null. A route whose path has such a key matches only
 * request paths with the same key: its pattern begins with those segments as literal text (case-insensitive), and a
 * request path whose own leading segments are plain text can only begin with them when its key is the same.
 */
export function prefixKey(path: string): string | null {
  if (path.charCodeAt(0) !== 47 /* / */) return null;
  let from = 1;
  let end = 0;
  for (let i = 0; i < DEPTH; i++) {
    end = path.indexOf('/', from);
    if (end < 0 || !PLAIN.test(path.slice(from, end))) return null;
    from = end + 1;
  }
  return path.slice(1, end).toLowerCase();
}

/** The request's path as the router reads it, up to the query. */
function pathOf(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

interface Views {
  stack: Layer[];
  length: number;
  byKey: Map<string, IndexableRouter>;
  /** The stack without any keyed route: for request paths whose key no route has. */
  other: IndexableRouter;
}

function viewOf(router: IndexableRouter, stack: Layer[]): IndexableRouter {
  // The router's own state (params, options) through the prototype; only the list of layers differs.
  const view = Object.create(router) as IndexableRouter;
  view.stack = stack;
  return view;
}

function build(router: IndexableRouter): Views {
  const stack = router.stack;
  const keyOf = (layer: Layer): string | null =>
    typeof layer.route?.path === 'string' ? prefixKey(layer.route.path) : null;
  const keys = new Set<string>();
  for (const layer of stack) {
    const key = keyOf(layer);
    if (key !== null) keys.add(key);
  }
  const byKey = new Map<string, IndexableRouter>();
  for (const key of keys) {
    byKey.set(
      key,
      viewOf(
        router,
        stack.filter((layer) => {
          const k = keyOf(layer);
          return k === null || k === key;
        }),
      ),
    );
  }
  return {
    stack,
    length: stack.length,
    byKey,
    other: viewOf(
      router,
      stack.filter((layer) => keyOf(layer) === null),
    ),
  };
}

/**
 * Express tries the application's layers one by one, each against its path pattern, until one matches: with ~420
 * routes a request to a route registered late (`POST .../lti/.../scores`) ran a few hundred regular expressions
 * before its handler, about a fifth of that request's CPU time (bench/README.md, AGS). The index hands the router,
 * per request, the same stack without the routes that cannot match the request's path: routes are keyed by their
 * first three segments when those are plain text (`/api/v1/lti/...`), and a request whose first three segments are
 * plain text sees the middleware, every route without a key, and the routes of its key, in their order. Any other
 * request path (shorter, parameters or encoded characters in those segments, an absolute URL) sees the whole stack.
 * Which layer answers is therefore unchanged. Built at the first request and again whenever the stack changes.
 */
export function installRouteIndex(router: IndexableRouter): void {
  const handle = router.handle;
  let views: Views | null = null;
  router.handle = function indexedHandle(req, res, done) {
    const key = prefixKey(pathOf(req.url));
    if (key === null) return handle.call(router, req, res, done);
    if (!views || views.stack !== router.stack || views.length !== router.stack.length) views = build(router);
    return handle.call(views.byKey.get(key) ?? views.other, req, res, done);
  };
}
