import type { Request, Response } from 'express';
import { Histogram, type Metric, Registry } from 'prom-client';
import { HttpHistogram, SECONDS } from './metrics.service';

/** The request and response fields the histogram reads. */
const call = (method: string, route: string | null, status: number, baseUrl = '') =>
  [
    { method, baseUrl, route: route === null ? undefined : { path: route } } as unknown as Request,
    {
      statusCode: status,
    } as unknown as Response,
  ] as const;

describe('HttpHistogram', () => {
  it('exposes what prom-client’s Histogram exposes for the same observations (text and JSON)', async () => {
    const ours = new Registry();
    const histogram = new HttpHistogram();
    ours.registerMetric(histogram as unknown as Metric);
    const theirs = new Registry();
    const reference = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: SECONDS,
      registers: [theirs],
    });
    // The same route object matched twice, another base URL, HEAD on a GET route, no route, other statuses, and
    // durations on, between and beyond the bounds.
    const version = call('GET', '/version', 200);
    const observations: [readonly [Request, Response], number][] = [
      [version, 0.0004],
      [version, 0.001],
      [call('GET', '/api/v1/organizations/:org_id/members', 401), 0.0123],
      [call('HEAD', '/version', 200), 0.05],
      [call('GET', null, 404), 11],
      [call('POST', '/jobs', 201, '/admin/queues'), 2.5],
      [version, 0.7],
    ];
    for (const [[req, res], seconds] of observations) {
      histogram.observe(req, res, seconds);
      const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
      reference.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
    }
    expect(await ours.metrics()).toEqual(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    ours.resetMetrics();
    theirs.resetMetrics();
    expect(await ours.metrics()).toEqual(await theirs.metrics());
  });
});
