import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The search vector of a language: the plain stems (accented suffixes such as "-ción" stem right) and the accent-folded ones. */
function vector(lang: 'es' | 'en', weighted: [string, 'A' | 'B' | 'C'][]): string {
  const [plain, folded] = lang === 'es' ? ['spanish', 'es_unaccent'] : ['english', 'en_unaccent'];
  return weighted
    .flatMap(([column, weight]) => [
      `setweight(to_tsvector('${plain}'::regconfig, ${column}), '${weight}')`,
      `setweight(to_tsvector('${folded}'::regconfig, ${column}), '${weight}')`,
    ])
    .join(' || ');
}

/**
 * Search vectors hold both the language's plain stems and its accent-folded tokens. Folding accents before
 * stemming (the previous vectors) defeats the Spanish stemmer on accented suffixes ("programación" stayed
 * unstemmed, so "programas" missed it); with both, queries match by stem and regardless of accents.
 */
export class SearchVectors1763741700000 implements MigrationInterface {
  name = 'SearchVectors1763741700000';

  async up(q: QueryRunner): Promise<void> {
    await this.rebuild(q, 'both');
  }

  async down(q: QueryRunner): Promise<void> {
    await this.rebuild(q, 'folded');
  }

  private async rebuild(q: QueryRunner, kind: 'both' | 'folded'): Promise<void> {
    const courseCols: [string, 'A' | 'B' | 'C'][] = [
      ['title', 'A'],
      ['summary', 'B'],
      ['description_md', 'C'],
    ];
    const lessonCols: [string, 'A' | 'B' | 'C'][] = [
      ['title', 'A'],
      ['content_md', 'B'],
    ];
    const expr = (lang: 'es' | 'en', cols: [string, 'A' | 'B' | 'C'][]): string =>
      kind === 'both'
        ? vector(lang, cols)
        : cols
            .map(
              ([c, w]) => `setweight(to_tsvector('${lang === 'es' ? 'es' : 'en'}_unaccent'::regconfig, ${c}), '${w}')`,
            )
            .join(' || ');
    for (const [table, cols] of [
      ['courses', courseCols],
      ['lessons', lessonCols],
    ] as const) {
      await q.query(`DROP INDEX ${table}_search_idx`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN search_vector`);
      await q.query(`ALTER TABLE ${table} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        CASE language WHEN 'es' THEN ${expr('es', [...cols])} ELSE ${expr('en', [...cols])} END) STORED`);
      await q.query(`CREATE INDEX ${table}_search_idx ON ${table} USING gin (search_vector)`);
    }
  }
}
