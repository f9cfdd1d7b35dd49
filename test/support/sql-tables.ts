/*
 * Which tables a piece of SQL reads and writes, for the table-ownership suite.
 *
 * The SQL of the areas is written as string and template literals, often in fragments (`${where}` pieces, shared
 * filter builders), so a whole-statement parser would refuse most of it. This reads the literals of a TypeScript
 * file with the compiler's own parser, tokenizes each one as PostgreSQL does (comments, string constants, dollar
 * quoting, quoted identifiers, placeholders) and follows the clauses that name relations: FROM and JOIN lists,
 * INSERT INTO, UPDATE, DELETE FROM ... USING, MERGE INTO, TRUNCATE, COPY, LOCK TABLE. A name counts only when it is
 * a relation of the live schema (tables and views) and not a CTE of the literal, so aliases and columns never
 * do. What it cannot see, it says: a relation named through a `${...}` placeholder is reported as dynamic.
 */
import * as ts from 'typescript';

export interface SqlReference {
  /** The relation (table or view), unqualified. */
  name: string;
  access: 'read' | 'write';
}

export interface LiteralReferences {
  /** 1-based line of the literal in its file. */
  line: number;
  text: string;
  references: SqlReference[];
  /** A relation position filled by a `${...}` placeholder: the suite cannot tell what it names. */
  dynamic: boolean;
}

type Token =
  | { kind: 'word'; value: string; quoted: boolean }
  | { kind: 'punct'; value: string }
  | { kind: 'placeholder' }
  | { kind: 'literal' };

/** The placeholder written in place of a template literal's `${...}` before tokenizing. */
const SUBSTITUTION = '\u0000';

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === SUBSTITUTION) {
      tokens.push({ kind: 'placeholder' });
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || ((c === 'E' || c === 'e') && sql[i + 1] === "'")) {
      i = c === "'" ? i + 1 : i + 2;
      while (i < sql.length) {
        if (sql[i] === '\\' && c !== "'") i += 2;
        else if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i++;
      tokens.push({ kind: 'literal' });
    } else if (c === '$' && /^\$([A-Za-z_]\w*)?\$/.test(sql.slice(i))) {
      const tag = /^\$([A-Za-z_]\w*)?\$/.exec(sql.slice(i))![0];
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? sql.length : end + tag.length;
      tokens.push({ kind: 'literal' });
    } else if (c === '$' && /\d/.test(sql[i + 1] ?? '')) {
      i++;
      while (/\d/.test(sql[i] ?? '')) i++;
      tokens.push({ kind: 'literal' });
    } else if (c === '"') {
      let value = '';
      i++;
      while (i < sql.length) {
        if (sql[i] === '"' && sql[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (sql[i] === '"') break;
        else value += sql[i++];
      }
      i++;
      tokens.push({ kind: 'word', value, quoted: true });
    } else if (/[A-Za-z_]/.test(c)) {
      let value = '';
      while (i < sql.length && /[\w$]/.test(sql[i])) value += sql[i++];
      tokens.push({ kind: 'word', value: value.toLowerCase(), quoted: false });
    } else if (/\d/.test(c)) {
      while (i < sql.length && /[\w.]/.test(sql[i])) i++;
      tokens.push({ kind: 'literal' });
    } else if (c === ':' && sql[i + 1] === ':') {
      tokens.push({ kind: 'punct', value: '::' });
      i += 2;
    } else {
      tokens.push({ kind: 'punct', value: c });
      i++;
    }
  }
  return tokens;
}

/** Keywords that end a FROM list (or the relation position of a write) at the same depth. */
const CLAUSE_END = new Set([
  'where',
  'group',
  'order',
  'limit',
  'offset',
  'having',
  'window',
  'on',
  'set',
  'returning',
  'union',
  'except',
  'intersect',
  'values',
  'select',
  'for',
  'fetch',
  'default',
  'overriding',
  'to',
  'with',
  'do',
  'when',
]);
/** Words that may stand between a relation position's keyword and the relation. */
const SKIP_BEFORE_RELATION = new Set(['only', 'lateral', 'table', 'in', 'share', 'exclusive', 'mode']);
const JOIN_WORDS = new Set(['join']);

interface Frame {
  /** 'from' while a FROM/USING list is open at this depth (a comma opens another relation). */
  list: 'from' | null;
}

/**
 * The relations the SQL names, each as read or written. `relations` are the names to recognise (the live schema's
 * tables and views); `dynamic` tells that a relation position held a `${...}` placeholder.
 */
export function references(
  sql: string,
  relations: ReadonlySet<string>,
): { references: SqlReference[]; dynamic: boolean } {
  const tokens = tokenize(sql);
  const found: SqlReference[] = [];
  let dynamic = false;
  const cteNames = new Set<string>();
  // CTE names: `WITH [RECURSIVE] name [(cols)] AS (` and `, name [(cols)] AS (`.
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind !== 'word') continue;
    let j = i + 1;
    let next = tokens[j];
    if (next?.kind === 'punct' && next.value === '(') {
      let depth = 0;
      for (; j < tokens.length; j++) {
        const u = tokens[j];
        if (u.kind === 'punct' && u.value === '(') depth++;
        if (u.kind === 'punct' && u.value === ')' && --depth === 0) break;
      }
      j++;
      next = tokens[j];
    }
    const prev = tokens[i - 1];
    const prevIsIntro =
      prev?.kind === 'word'
        ? prev.value === 'with' || prev.value === 'recursive'
        : prev?.kind === 'punct' && prev.value === ',';
    if (prevIsIntro && next?.kind === 'word' && next.value === 'as') {
      const after = tokens[j + 1];
      const afterAfter = tokens[j + 2];
      const materialized =
        after?.kind === 'word' && (after.value === 'materialized' || after.value === 'not') ? true : false;
      if ((after?.kind === 'punct' && after.value === '(') || materialized || afterAfter === undefined) {
        cteNames.add(t.value);
      }
    }
  }

  const stack: Frame[] = [{ list: null }];
  const frame = () => stack[stack.length - 1];

  /** Reads a relation at `i` (after skipping noise words); returns the index after it. */
  const relationAt = (i: number, access: SqlReference['access']): number => {
    while (tokens[i]?.kind === 'word' && SKIP_BEFORE_RELATION.has((tokens[i] as { value: string }).value)) i++;
    const t = tokens[i];
    if (!t) return i;
    if (t.kind === 'placeholder') {
      dynamic = true;
      return i + 1;
    }
    if (t.kind !== 'word') return i;
    let name = t.value;
    let k = i + 1;
    const dot = tokens[k];
    if (dot?.kind === 'punct' && dot.value === '.' && tokens[k + 1]?.kind === 'word') {
      name = (tokens[k + 1] as { value: string }).value;
      k += 2;
    }
    if (relations.has(name) && !cteNames.has(name)) found.push({ name, access });
    return k;
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'punct') {
      if (t.value === '(') stack.push({ list: null });
      else if (t.value === ')') {
        if (stack.length > 1) stack.pop();
      } else if (t.value === ',' && frame().list === 'from') {
        i = relationAt(i + 1, 'read') - 1;
      } else if (t.value === ';') {
        frame().list = null;
      }
      continue;
    }
    if (t.kind !== 'word' || t.quoted) continue;
    const w = t.value;
    const prev = tokens[i - 1];
    const prevWord = prev?.kind === 'word' ? prev.value : undefined;
    if (w === 'from') {
      // `DELETE FROM x`, `COPY x FROM STDIN`, `IS DISTINCT FROM`, `extract(... FROM ...)`, `substring(... FROM ...)`.
      if (prevWord === 'delete') {
        i = relationAt(i + 1, 'write') - 1;
        frame().list = null;
      } else if (prevWord === 'distinct') {
        continue;
      } else {
        frame().list = 'from';
        i = relationAt(i + 1, 'read') - 1;
      }
    } else if (JOIN_WORDS.has(w)) {
      i = relationAt(i + 1, 'read') - 1;
      frame().list = 'from';
    } else if (w === 'using' && frame().list === null && isDeleteUsing(tokens, i)) {
      frame().list = 'from';
      i = relationAt(i + 1, 'read') - 1;
    } else if (w === 'into' && (prevWord === 'insert' || prevWord === 'merge')) {
      i = relationAt(i + 1, 'write') - 1;
    } else if (w === 'update' && prevWord !== 'for' && prevWord !== 'do' && prevWord !== 'key' && prevWord !== 'no') {
      const next = tokens[i + 1];
      if (next?.kind === 'word' && next.value === 'set') continue; // ON CONFLICT ... DO UPDATE SET
      i = relationAt(i + 1, 'write') - 1;
    } else if (w === 'truncate') {
      i = relationAt(i + 1, 'write') - 1;
      while (tokens[i + 1]?.kind === 'punct' && (tokens[i + 1] as { value: string }).value === ',') {
        i = relationAt(i + 2, 'write') - 1;
      }
    } else if (w === 'lock' && tokens[i + 1]?.kind === 'word') {
      i = relationAt(i + 1, 'write') - 1;
    } else if (w === 'copy') {
      const next = tokens[i + 1];
      if (next?.kind === 'word') {
        // COPY table FROM STDIN writes; COPY table TO reads.
        let k = i + 2;
        let depth = 0;
        for (; k < tokens.length; k++) {
          const u = tokens[k];
          if (u.kind === 'punct' && u.value === '(') depth++;
          if (u.kind === 'punct' && u.value === ')') depth--;
          if (depth === 0 && u.kind === 'word' && (u.value === 'from' || u.value === 'to')) break;
        }
        const direction = tokens[k];
        const access = direction?.kind === 'word' && direction.value === 'from' ? 'write' : 'read';
        relationAt(i + 1, access);
        i = k;
      }
    } else if (CLAUSE_END.has(w)) {
      frame().list = null;
    }
  }
  return { references: found, dynamic };
}

/** `DELETE FROM x [alias] USING ...` (not `JOIN ... USING (col)`, whose USING is followed by a parenthesis). */
function isDeleteUsing(tokens: Token[], i: number): boolean {
  const next = tokens[i + 1];
  if (next?.kind === 'punct' && next.value === '(') return false;
  for (let k = i - 1; k >= 0 && k >= i - 4; k--) {
    const t = tokens[k];
    if (t.kind === 'word' && t.value === 'from' && tokens[k - 1]?.kind === 'word') {
      return (tokens[k - 1] as { value: string }).value === 'delete';
    }
  }
  return false;
}

/** Looks like SQL: a verb or a FROM in capitals, as every SQL string of the project is written. */
const SQL_SHAPE = /\b(SELECT|INSERT|UPDATE|DELETE|FROM|JOIN|TRUNCATE|COPY|MERGE|LOCK)\b/;

/** Every string and template literal of a TypeScript source that looks like SQL, with what it names. */
export function literalsOf(source: string, fileName: string, relations: ReadonlySet<string>): LiteralReferences[] {
  if (!SQL_SHAPE.test(source)) return [];
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: LiteralReferences[] = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) {
      text = node.head.text + node.templateSpans.map((s) => SUBSTITUTION + s.literal.text).join('');
    }
    if (text !== undefined && SQL_SHAPE.test(text)) {
      const found = references(text, relations);
      out.push({
        line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        text,
        references: found.references,
        dynamic: found.dynamic,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}
