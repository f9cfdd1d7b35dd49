// Preloaded into the service (`--import`) by bench/passkeys.mjs when BENCH_CPU_WINDOW_DIR is set: SIGHUP starts the
// V8 CPU profiler, the next SIGHUP stops it and writes `<n>.cpuprofile` (n = 1, 2, ...) into that directory, so a
// profile covers only the requests the bench times (not the start, the migrations or the set-up). The sampling
// interval is BENCH_CPU_WINDOW_INTERVAL_US (default 200 µs). Profiles are for relative costs, not for figures.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.BENCH_CPU_WINDOW_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  let running = false;
  let n = 0;
  process.on('SIGHUP', () => {
    void (async () => {
      if (!running) {
        running = true;
        await post('Profiler.enable');
        await post('Profiler.setSamplingInterval', {
          interval: Number(process.env.BENCH_CPU_WINDOW_INTERVAL_US ?? 200),
        });
        await post('Profiler.start');
        return;
      }
      running = false;
      const { profile } = await post('Profiler.stop');
      writeFileSync(join(dir, `${++n}.cpuprofile`), JSON.stringify(profile));
    })();
  });
}
