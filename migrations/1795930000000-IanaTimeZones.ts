import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People's and organizations' `time_zone` as the tz database spells it. The validator accepted whatever ICU knows,
 * and PostgreSQL, which computes local days with `AT TIME ZONE`, does not know some of it (`AET`, `CTT`: one such
 * person failed the platform-wide digest statement) or reads it otherwise (`PST`: a fixed UTC-8 for PostgreSQL,
 * America/Los_Angeles for ICU). Each stored zone outside the tz database's spelling becomes the IANA zone ICU reads
 * it as (`PST` -> America/Los_Angeles, `europe/madrid` -> Europe/Madrid), or UTC when ICU names none. The rule is
 * copied here on purpose: a migration stays what it was when it ran.
 */
const IANA_NAME =
  /^(UTC|(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)(\/[A-Za-z0-9_+-]+)+)$/;

/** The tz-database spelling of a stored zone (ICU's reading of it), or `UTC`. */
export function ianaTimeZone(zone: string): string {
  if (IANA_NAME.test(zone)) return zone;
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
    return IANA_NAME.test(resolved) ? resolved : 'UTC';
  } catch {
    return 'UTC';
  }
}

export class IanaTimeZones1795930000000 implements MigrationInterface {
  name = 'IanaTimeZones1795930000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['users', 'organizations']) {
      const rows = (await q.query(`SELECT DISTINCT time_zone FROM ${table}`)) as { time_zone: string }[];
      for (const { time_zone: zone } of rows) {
        const iana = ianaTimeZone(zone);
        if (iana !== zone) await q.query(`UPDATE ${table} SET time_zone = $1 WHERE time_zone = $2`, [iana, zone]);
      }
    }
  }

  async down(): Promise<void> {
    // The zones it replaced named the same local clocks (or none PostgreSQL knows): nothing to restore.
  }
}
