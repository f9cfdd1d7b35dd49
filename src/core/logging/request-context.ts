import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  readonly requestId: string;
}

/** The request a piece of code runs for, so every log line written while serving it carries its id. */
export const requestContext = new AsyncLocalStorage<RequestContext>();
