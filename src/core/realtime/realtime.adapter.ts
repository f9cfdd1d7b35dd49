import type { INestApplicationContext } from '@nestjs/common';
import type { Server as HttpServer } from 'node:http';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { Server, type ServerOptions } from 'socket.io';
import { REALTIME_PATH } from './realtime.constants';
import { type Realtime } from './realtime.service';

/**
 * The one Socket.IO server of an API process, on its HTTP server at `/api/v1/socket.io` (8.3): CORS as
 * `CORS_ORIGINS` with credentials, connection state recovery for the reconnection window, and the Redis streams
 * adapter when Redis is configured. Every gateway's namespace lives on it. The server is built from the
 * application's own `socket.io` (the Nest package carries a nested copy; one copy keeps the adapter and the
 * namespaces of one kind).
 */
export class RealtimeIoAdapter extends IoAdapter {
  constructor(
    app: INestApplicationContext,
    private readonly realtime: Realtime,
  ) {
    super(app);
  }

  // The parameter's type is the nested copy's ServerOptions; only plain gateway options come through it.
  override createIOServer(_port: number, options?: object): never {
    const { path: _ignored, ...rest } = (options ?? {}) as Partial<ServerOptions>;
    const server = new Server(this.httpServer as HttpServer, {
      ...rest,
      ...this.realtime.serverOptions(),
      path: REALTIME_PATH,
    });
    this.realtime.attach(server);
    return server as never;
  }
}
