import type { OpenAPIObject } from '@nestjs/swagger';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const WRITE = new Set(['post', 'put', 'patch', 'delete']);

function minorsCell(op: Record<string, unknown>, method: string, isPublic: boolean): string {
  if (isPublic || !WRITE.has(method) || op['x-read-operation']) return 'yes';
  const level = op['x-minor-access'] as string | undefined;
  return level === 'with_consent' ? 'with consent' : (level ?? 'no');
}

function sessionCell(op: Record<string, unknown>, isPublic: boolean): string {
  if (isPublic) return '';
  const rule = op['x-session-only'] as string | undefined;
  return rule === 'unauthorized' ? 'cookie' : rule ? 'yes' : '';
}

/**
 * Every operation's access declaration as one markdown table, built from the OpenAPI document (whose `x-`
 * extensions are written by the same decorators the guards read). Committed as docs/access-table.md; a test
 * fails when it drifts, so a permission change shows up in review as a diff of that file.
 */
export function accessTable(doc: OpenAPIObject, exclude: (path: string) => boolean = () => false): string {
  const rows: string[] = [];
  for (const path of Object.keys(doc.paths).sort()) {
    if (exclude(path)) continue;
    const item = doc.paths[path] as Record<string, Record<string, unknown> | undefined>;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const isPublic = Boolean(op['x-public']);
      const cells = [
        method.toUpperCase(),
        `\`${path}\``,
        isPublic ? 'public' : 'credential',
        op['x-org-scoped'] ? 'org' : '',
        ((op['x-roles'] as string[] | undefined) ?? []).join(', '),
        ((op['x-platform-roles'] as string[] | undefined) ?? []).join(', '),
        op['x-step-up'] ? 'yes' : '',
        sessionCell(op, isPublic),
        !isPublic && op['x-not-while-impersonating'] ? 'refused' : '',
        !isPublic && WRITE.has(method) && !op['x-read-operation'] ? 'yes' : '',
        minorsCell(op, method, isPublic),
        ((op['x-rate-limits'] as string[] | undefined) ?? []).join('; '),
      ];
      rows.push(`| ${cells.join(' | ')} |`);
    }
  }
  return [
    '# Access table',
    '',
    'Generated from the OpenAPI description (`npm run docs:generate`); the e2e suite fails when it drifts.',
    'Columns: who may call (`public` or any `credential`), organization scoping of the path, organization roles,',
    'platform roles, recent step-up, whether only a browser session may call (`yes`: bearer tokens get 403',
    '`forbidden`; `cookie`: only the `access_token` cookie authenticates, a bearer token gets 401), whether an',
    'impersonation session is refused (403 `impersonation_restricted`), whether read-only tokens are refused',
    '(write), what a minor’s read-only session may call (extensions-v2 2.5: `yes` for reads and public operations,',
    '`always`, `with consent`, else `no`), and rate limits.',
    '',
    '| Method | Path | Auth | Scope | Roles | Platform | Step-up | Session | Impersonation | Write | Minors | Rate limits |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
