import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the gamification area publishes for the engagement report (extensions-v2 15.1): read views of the XP ledger
 * and of the totals (with the level the ledger service stores by `levelOf`, so the rule stays in one place), and
 * `gamification_streak_current(user, at)`: the streak's `current` as `StreaksService.currentOf` answers it (the
 * state machine of `streak-rules.ts` evaluated up to the person's "today" at `at`, without writing), so a report
 * can read it for every member in one set-based statement. The function's twin test compares it with
 * `currentOf` (test/integration/practice/gamification.int-spec.ts).
 */
export class GamificationReportReads1795917055600 implements MigrationInterface {
  name = 'GamificationReportReads1795917055600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE VIEW xp_ledger_read AS SELECT organization_id, user_id, source, amount, occurred_at, created_at FROM xp_ledger`,
    );
    await q.query(`CREATE VIEW xp_totals_read AS SELECT organization_id, user_id, xp, level FROM xp_totals`);
    // evaluate() then currentStreak() of streak-rules.ts, line for line; "today" is the person's zone at p_at.
    await q.query(`
      CREATE FUNCTION gamification_streak_current(p_user uuid, p_at timestamptz) RETURNS integer
      LANGUAGE plpgsql STABLE AS $$
      DECLARE
        s streaks%ROWTYPE;
        v_today date;
        v_yesterday date;
        v_active date[];
        v_max_active date;
        v_count integer;
        v_last date;
        v_freezes integer;
        v_evaluated_through date;
        v_evaluated_from date;
        v_granted_from date;
        d date;
      BEGIN
        SELECT * INTO s FROM streaks WHERE user_id = p_user;
        IF NOT FOUND THEN RETURN 0; END IF;
        SELECT (p_at AT TIME ZONE coalesce(u.time_zone, 'UTC'))::date INTO v_today FROM users u WHERE u.id = p_user;
        v_today := coalesce(v_today, (p_at AT TIME ZONE 'UTC')::date);
        v_yesterday := v_today - 1;
        v_active := ARRAY(SELECT DISTINCT a.local_date FROM activity_days a WHERE a.user_id = p_user AND a.active
          AND (coalesce(s.evaluated_through, s.first_active_on) IS NULL
            OR a.local_date >= coalesce(s.evaluated_through, s.first_active_on)));
        SELECT max(x) INTO v_max_active FROM unnest(v_active) AS x;
        v_count := s.run_count;
        v_last := s.run_last;
        v_freezes := s.freezes;
        v_evaluated_through := s.evaluated_through;
        IF s.first_active_on IS NOT NULL THEN
          v_evaluated_from := coalesce(s.evaluated_through, s.first_active_on - 1);
          v_granted_from := coalesce(s.grants_through, s.first_active_on);
          d := least(v_evaluated_from, v_granted_from) + 1;
          WHILE d <= v_today LOOP
            -- A broken run with no active day ahead stays broken: only freezes would change, and they do not count.
            EXIT WHEN v_last IS NULL AND (v_max_active IS NULL OR v_max_active < d);
            IF d > v_granted_from AND d > s.first_active_on AND extract(isodow FROM d) = 1 THEN
              v_freezes := least(2, v_freezes + 1);
            END IF;
            IF d > v_evaluated_from AND d <= v_yesterday THEN
              IF d = ANY(v_active) THEN
                v_count := CASE WHEN v_last IS NOT NULL AND v_last = d - 1 THEN v_count + 1 ELSE 1 END;
                v_last := d;
              ELSIF v_last IS NOT NULL AND v_last = d - 1 THEN
                IF v_freezes > 0 THEN
                  v_freezes := v_freezes - 1;
                  v_last := d;
                ELSE
                  v_count := 0;
                  v_last := NULL;
                END IF;
              END IF;
            END IF;
            d := d + 1;
          END LOOP;
          v_evaluated_through := greatest(s.evaluated_through, v_yesterday);
        END IF;
        RETURN CASE WHEN v_last IS NOT NULL AND v_last >= v_yesterday THEN v_count ELSE 0 END
          + CASE WHEN v_today = ANY(v_active)
              AND NOT (v_evaluated_through IS NOT NULL AND v_today <= v_evaluated_through) THEN 1 ELSE 0 END;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS gamification_streak_current(uuid, timestamptz)`);
    await q.query(`DROP VIEW IF EXISTS xp_totals_read`);
    await q.query(`DROP VIEW IF EXISTS xp_ledger_read`);
  }
}
