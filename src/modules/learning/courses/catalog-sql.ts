import { orgEq } from '@/core/database/tenancy';

/**
 * The catalog rules written once as SQL, so the catalog list, the course pages and search can never disagree about
 * what an organization sees or what a query matches.
 */

/**
 * A course is visible to an organization when it is published and public, or published and restricted to that
 * organization. `alias` is the courses alias of the query; `org` the position of the parameter holding the
 * organization id (its predicate built by `orgEq`), or the organization column of a joined row (`m.organization_id`).
 */
export function visibleTo(alias: string, org: number | `${string}.organization_id`): string {
  const offered = typeof org === 'number' ? orgEq(org, 'co') : `co.organization_id = ${org}`;
  return `(${alias}.status = 'published' AND (${alias}.visibility = 'public' OR EXISTS (
    SELECT 1 FROM course_organizations_read co WHERE co.course_id = ${alias}.id AND ${offered})))`;
}

/**
 * The full-text query of `q` in both languages, each read twice: stemmed as written and accent-folded. A document
 * vector holds both forms (migration SearchVectors), so "programas" finds "programación" by stem and
 * "programacion" finds it without the accent. Served by the GIN indexes on `search_vector`.
 */
export function textQuery(param: string): string {
  return `(websearch_to_tsquery('spanish', ${param}) || websearch_to_tsquery('es_unaccent', ${param}) ||
    websearch_to_tsquery('english', ${param}) || websearch_to_tsquery('en_unaccent', ${param}))`;
}

/** The catalog's filters (the organization's catalog and the public one filter alike). */
export interface CatalogFilter {
  q?: string;
  language?: string;
  level?: string;
  tag?: string;
}

/**
 * The conditions of a catalog filter on the courses alias `c`, each with its parameter appended to `params` (which
 * may already hold the query's earlier parameters): `q` by full text, `language` and `level` exactly, `tag` by
 * containment (served by the GIN index on `tags`).
 */
export function catalogConditions(filter: CatalogFilter, params: unknown[]): string[] {
  const where: string[] = [];
  if (filter.q) {
    params.push(filter.q);
    where.push(`c.search_vector @@ ${textQuery(`$${params.length}`)}`);
  }
  if (filter.language) {
    params.push(filter.language);
    where.push(`c.language = $${params.length}`);
  }
  if (filter.level) {
    params.push(filter.level);
    where.push(`c.level = $${params.length}`);
  }
  if (filter.tag) {
    params.push([filter.tag]);
    where.push(`c.tags @> $${params.length}::text[]`);
  }
  return where;
}

/** The text search configuration of a row's language (snippets are cut with the document's own config). */
export function configOf(alias: string): string {
  return `(CASE ${alias}.language WHEN 'es' THEN 'es_unaccent'::regconfig ELSE 'en_unaccent'::regconfig END)`;
}

/**
 * A question as an OR query of its own lexemes (extensions-v2 23.2): the lexemes of `to_tsvector` under the four
 * configurations of `textQuery`, each quoted, joined with `|`. Unlike `textQuery` (every word required), a passage
 * matching any of them is a candidate, and `ts_rank_cd` orders them. Null when the text has no lexeme (only stop
 * words or punctuation): nothing matches.
 */
export function lexemeOrQuery(param: string): string {
  const lexemes = ['spanish', 'es_unaccent', 'english', 'en_unaccent']
    .map((config) => `tsvector_to_array(to_tsvector('${config}'::regconfig, ${param}))`)
    .join(' || ');
  return `(SELECT string_agg(DISTINCT '''' || replace(replace(w, '\\', '\\\\'), '''', '''''') || '''', ' | ')
    FROM unnest(${lexemes}) AS w)::tsquery`;
}
