/**
 * Waits for an asynchronous outcome (a background job finishing) by polling a condition. It never asserts on
 * elapsed time: the timeout only turns a hang into a clear failure.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 15_000, intervalMs = 25, what = 'condition' } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
