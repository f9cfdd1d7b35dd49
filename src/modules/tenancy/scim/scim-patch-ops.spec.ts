import { ScimError } from './scim-errors';
import { applyUserPatch, normalizePatch } from './scim-patch-ops';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

function user(): Record<string, unknown> {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    id: 'u1',
    userName: 'ana@x.org',
    active: true,
    name: { givenName: 'Ana', familyName: 'Ruiz' },
    emails: [{ value: 'ana@x.org', type: 'work', primary: true }],
    meta: { resourceType: 'User', created: '2026-01-01T00:00:00Z', lastModified: '2026-01-01T00:00:00Z' },
  };
}

function scimType(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof ScimError ? err.scimType : 'other';
  }
  return undefined;
}

describe('SCIM PatchOp normalization (real clients)', () => {
  it('lower-cases Entra’s "Replace" and splits path-less operations into one per attribute', () => {
    expect(
      normalizePatch({
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', value: { active: 'False', 'name.givenName': 'B' } }],
      }),
    ).toEqual([
      { op: 'replace', path: 'active', value: 'False' },
      { op: 'replace', path: 'name.givenName', value: 'B' },
    ]);
  });

  it('applies value-path filters, URN paths and case-insensitive names with scim-patch, without touching the input', () => {
    const before = user();
    const after = applyUserPatch(
      before,
      normalizePatch({
        schemas: [PATCH_OP],
        Operations: [
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'new@x.org' },
          { op: 'add', path: `${ENTERPRISE}:Department`, value: 'Physics' },
          { op: 'replace', path: 'NAME.FAMILYNAME', value: 'Gil' },
          { op: 'remove', path: 'name.givenName' },
        ],
      }),
    );
    expect(after.emails).toEqual([{ value: 'new@x.org', type: 'work', primary: true }]);
    expect(after[ENTERPRISE]).toEqual({ department: 'Physics' });
    expect(after.name).toEqual({ familyName: 'Gil' });
    expect(before.name).toEqual({ givenName: 'Ana', familyName: 'Ruiz' });
  });

  it('refuses what is not a PatchOp, unknown ops, remove without path, read-only and unknown attributes', () => {
    expect(scimType(() => normalizePatch({ Operations: [] }))).toBe('invalidSyntax');
    expect(scimType(() => normalizePatch({ schemas: [PATCH_OP], Operations: [] }))).toBe('invalidSyntax');
    expect(scimType(() => normalizePatch({ schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'a' }] }))).toBe(
      'invalidSyntax',
    );
    expect(scimType(() => normalizePatch({ schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }))).toBe('noTarget');
    expect(scimType(() => applyUserPatch(user(), [{ op: 'replace', path: 'meta.created', value: 'x' }]))).toBe(
      'mutability',
    );
    expect(scimType(() => applyUserPatch(user(), [{ op: 'replace', path: 'nickName', value: 'x' }]))).toBe(
      'invalidPath',
    );
  });
});
