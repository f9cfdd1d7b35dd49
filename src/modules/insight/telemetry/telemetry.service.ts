import { Injectable } from '@nestjs/common';
import type { AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import type {
  ClientErrorDto,
  ErrorGroupDto,
  ErrorsQueryDto,
  TelemetryPeriod,
  VitalsDto,
  VitalsQueryDto,
  VitalsReportDto,
} from './dto/telemetry.dto';
import { classify, fingerprint, normalizeRoute, scrub } from './telemetry-rules';
import { TelemetryRepository, type VitalRow } from './telemetry.repository';

/** Decides which accepted events are kept (`TELEMETRY_SAMPLE_RATE`); a class so tests can replace the dice. */
export class TelemetrySampler {
  constructor(private readonly rate: number) {}

  keep(): boolean {
    return this.rate >= 1 || (this.rate > 0 && Math.random() < this.rate);
  }
}

export const TELEMETRY_RETENTION_MS = 30 * 86_400_000;
const PERIOD_MS: Record<TelemetryPeriod, number> = { day: 86_400_000, week: 7 * 86_400_000 };

const iso = (d: unknown): string => new Date(d as string).toISOString();

/** Web vitals and client errors without personal data (extensions-v2 21). */
@Injectable()
export class TelemetryService {
  constructor(
    private readonly repository: TelemetryRepository,
    private readonly sampler: TelemetrySampler,
    private readonly clock: Clock,
  ) {}

  async vitals(dto: VitalsDto, userAgent: string | undefined): Promise<number> {
    dto.events.forEach((e, i) => {
      if (e.name === 'CLS' && e.value > 10)
        throw ApiError.validation([{ field: `events.${i}.value`, message: 'CLS must be at most 10' }]);
    });
    const client = classify(userAgent);
    const rows: VitalRow[] = [];
    for (const e of dto.events) {
      const route = normalizeRoute(e.route);
      if (!route || !this.sampler.keep()) continue;
      rows.push({
        release: dto.release ?? null,
        route,
        metric: e.name,
        value: e.value,
        rating: e.rating,
        navigation_type: e.navigation_type ?? null,
        ...client,
      });
    }
    await this.repository.insertVitals(rows, this.clock.now());
    return rows.length;
  }

  async error(dto: ClientErrorDto, userAgent: string | undefined): Promise<number> {
    const route = normalizeRoute(dto.route);
    if (!route || !this.sampler.keep()) return 0;
    const message = scrub(dto.message).slice(0, 1000);
    const stack = dto.stack ? scrub(dto.stack).slice(0, 8000) : null;
    await this.repository.insertError(
      {
        release: dto.release ?? null,
        route,
        fingerprint: fingerprint(message, stack),
        message,
        stack,
        kind: dto.kind ?? 'error',
        ...classify(userAgent),
      },
      this.clock.now(),
    );
    return 1;
  }

  async vitalsReport(query: VitalsQueryDto): Promise<VitalsReportDto> {
    const to = this.clock.now();
    const from = new Date(to.getTime() - PERIOD_MS[query.period]);
    const route = query.route ? normalizeRoute(query.route) : null;
    const items = await this.repository.vitals(from, to, route ?? query.route ?? null, query.release ?? null);
    return {
      period: query.period,
      from: from.toISOString(),
      to: to.toISOString(),
      items: items.map((i) => ({ ...i, p75: Number(i.p75) })),
    };
  }

  async errorsReport(query: ErrorsQueryDto): Promise<Page<ErrorGroupDto>> {
    const to = this.clock.now();
    const from = new Date(to.getTime() - PERIOD_MS[query.period]);
    const { rows, total } = await this.repository.errors(from, to, query.release ?? null, query);
    return toPage(
      rows.map((r) => ({
        fingerprint: r.fingerprint as string,
        message: r.message as string,
        sample_stack: (r.sample_stack as string | null) ?? null,
        routes: r.routes as string[],
        releases: r.releases as string[],
        count: r.count as number,
        first_seen_at: iso(r.first_seen_at),
        last_seen_at: iso(r.last_seen_at),
      })),
      total,
      query,
    );
  }

  async prune(): Promise<void> {
    await this.repository.prune(new Date(this.clock.nowMs() - TELEMETRY_RETENTION_MS));
  }
}

export function samplerFromConfig(config: AppConfig): TelemetrySampler {
  return new TelemetrySampler(config.telemetrySampleRate);
}
