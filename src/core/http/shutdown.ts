import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { Global, Injectable, Module } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import type { AppConfig } from '@/config/app-config';
import { AppLogger } from '@/core/logging/logger';
import { Realtime } from '@/core/realtime/realtime.service';

/** Whether this instance is being stopped: `/ready` answers 503 from the first moment of a SIGTERM. */
@Injectable()
export class ShutdownState {
  private since: number | null = null;

  get draining(): boolean {
    return this.since !== null;
  }

  begin(): void {
    this.since ??= performance.now();
  }
}

@Global()
@Module({ providers: [ShutdownState], exports: [ShutdownState] })
export class ShutdownModule {}

/**
 * A rolling restart without a failed request (5.2). On SIGTERM an API instance:
 * 1. answers `/ready` 503 at once, so the load balancer stops sending it new connections (it polls the probe);
 *    meanwhile it still accepts connections and serves them, each response with `Connection: close` so that a
 *    client's next request opens a connection the balancer sends elsewhere;
 * 2. after `SHUTDOWN_DRAIN_MS` closes its listening socket (new connections are refused, which a balancer retries
 *    on another instance); idle keep-alive connections end at their announced timeout, not under a client;
 * 3. closes the Socket.IO server: every socket is dropped with the server-side reason `server shutting down`, a
 *    transport close for the client, which reconnects (through the balancer, to another instance; the Redis
 *    streams adapter recovers its session there);
 * 4. closes the application: requests in flight finish, running jobs finish or go back to the queue, pools close.
 * The worker process has no listener: Nest's shutdown hooks (Bull's close waits for running jobs) suffice.
 */
export function installGracefulShutdown(app: INestApplication, config: AppConfig): void {
  const server = app.getHttpServer() as Server;
  const state = app.get(ShutdownState);
  const logger = app.get(AppLogger);
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (state.draining) res.shouldKeepAlive = false;
  });
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (state.draining) return;
    state.begin();
    logger.log({ drain_ms: config.shutdownDrainMs, signal }, 'Shutting down: /ready answers 503, draining');
    // Operational wall time, not the Clock: the balancer's probe runs on real time.
    if (config.shutdownDrainMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDrainMs));
    // Stop listening, but leave idle keep-alive connections to their keep-alive timeout: the server announces it
    // (`Keep-Alive: timeout=5`) and clients stop reusing a connection before it expires, whereas closing an idle
    // connection now races a client that has just picked it for a request (a reset no load balancer retries
    // for a non-idempotent request). `http.Server.close` would close them at once (Node 19+), so the listener is
    // closed as a plain net.Server; connections still end, and `closed` resolves, once each is done.
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
    await app.get(Realtime).closeServer();
    logger.log('Stopped accepting connections; finishing the requests in flight');
    await closed;
    await app.close();
    process.kill(process.pid, signal);
  };
  process.once('SIGTERM', () => {
    stop('SIGTERM').catch((err: unknown) => {
      logger.error({ err }, 'Shutdown failed');
      process.exit(1);
    });
  });
}
