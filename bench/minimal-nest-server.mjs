// The framework's own cost: a minimal NestJS application on Express (what `nest new` gives: NestFactory.create with
// its defaults, one module, one controller) answering GET /version with the JSON the service's /version answers
// (BENCH_BODY, the exact bytes). No middleware, guard, interceptor, filter, logger or metric of ours: what is left
// between this and bench/bare-server.mjs is Nest and Express; between this and the service, our pipeline.
// Forked by bench/lib.mjs (startMinimalNest) with the same Node binary as the service and the bare server.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

const answer = JSON.parse(process.env.BENCH_BODY ?? '{"status":"ok"}');

// Decorators applied by hand: this file is plain JavaScript, run as it is (no TypeScript build).
class VersionController {
  version() {
    return answer;
  }
}
Controller()(VersionController);
Get('version')(
  VersionController.prototype,
  'version',
  Object.getOwnPropertyDescriptor(VersionController.prototype, 'version'),
);

class MinimalModule {}
Module({ controllers: [VersionController] })(MinimalModule);

const app = await NestFactory.create(MinimalModule, { logger: false });
app.getHttpServer().keepAliveTimeout = 5000;
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.send?.('ready');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
