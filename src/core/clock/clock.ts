import { Injectable } from '@nestjs/common';

/**
 * The one source of "now". Code that compares times (token expiry, code lifetimes, challenge windows) reads it,
 * so tests move time forward instead of sleeping.
 */
@Injectable()
export class Clock {
  /** Whether `now` is this class's own (not a test clock's): then `nowMs` reads the time without a Date. */
  private readonly real = this.now === Clock.prototype.now;

  now(): Date {
    return new Date();
  }

  /** Read on every request (budgets, sessions): no Date allocated unless a subclass moves time. */
  nowMs(): number {
    return this.real ? Date.now() : this.now().getTime();
  }

  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  /** A time `ms` milliseconds from now. */
  in(ms: number): Date {
    return new Date(this.nowMs() + ms);
  }
}

/**
 * The real time plus an offset that tests move forward (`advance`): it still runs, so a test comparing two readings
 * across a second boundary must freeze its own clock. Used by tests; never bound in production.
 */
export class ManualClock extends Clock {
  private offsetMs = 0;

  override now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
