import type { NextFunction, Request, Response } from 'express';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * Middlewares run one after the other as one Express layer: what Express does between layers (a path match, a
 * parameter pass, a closure and a debug call per layer) is done once. Each calls `next` to go on, `next(err)` to
 * stop with an error (as in Express, a throw is one too).
 */
export function inSeries(...steps: Middleware[]): Middleware {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const fn = steps[i++];
      if (fn === undefined) return next();
      try {
        fn(req, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
