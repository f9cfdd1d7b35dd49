/**
 * The discovery documents of RFC 7644 section 4 and the schemas of RFC 7643 sections 4, 4.3 and 7, limited to the
 * attributes this service keeps (an identity provider maps only what the schema offers).
 */
export const SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export const MAX_RESULTS = 200;
export const MAX_GROUP_MEMBERS = 10_000;

interface AttributeDef {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned?: 'always' | 'never' | 'default' | 'request';
  uniqueness?: 'none' | 'server' | 'global';
  subAttributes?: AttributeDef[];
  referenceTypes?: string[];
  canonicalValues?: string[];
}

function attr(def: AttributeDef): Record<string, unknown> {
  return {
    name: def.name,
    type: def.type,
    multiValued: def.multiValued ?? false,
    description: def.name,
    required: def.required ?? false,
    caseExact: def.caseExact ?? false,
    mutability: def.mutability ?? 'readWrite',
    returned: def.returned ?? 'default',
    uniqueness: def.uniqueness ?? 'none',
    ...(def.canonicalValues ? { canonicalValues: def.canonicalValues } : {}),
    ...(def.referenceTypes ? { referenceTypes: def.referenceTypes } : {}),
    ...(def.subAttributes ? { subAttributes: def.subAttributes.map(attr) } : {}),
  };
}

const str = (name: string, extra: Partial<AttributeDef> = {}): AttributeDef => ({ name, type: 'string', ...extra });

function schemaDoc(base: string, id: string, name: string, attributes: AttributeDef[]): Record<string, unknown> {
  return {
    schemas: [SCHEMA.schema],
    id,
    name,
    description: name,
    attributes: attributes.map(attr),
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  };
}

export function schemas(base: string): Record<string, unknown>[] {
  return [
    schemaDoc(base, SCHEMA.user, 'User', [
      str('userName', { required: true, uniqueness: 'server' }),
      str('externalId', { caseExact: true }),
      {
        name: 'name',
        type: 'complex',
        subAttributes: [str('formatted'), str('givenName'), str('familyName')],
      },
      str('displayName'),
      str('preferredLanguage'),
      str('locale'),
      str('timezone'),
      { name: 'active', type: 'boolean' },
      {
        name: 'emails',
        type: 'complex',
        multiValued: true,
        subAttributes: [str('value'), str('type', { canonicalValues: ['work'] }), { name: 'primary', type: 'boolean' }],
      },
      {
        name: 'groups',
        type: 'complex',
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [
          str('value', { mutability: 'readOnly' }),
          { name: '$ref', type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly' },
          str('display', { mutability: 'readOnly' }),
        ],
      },
    ]),
    schemaDoc(base, SCHEMA.enterpriseUser, 'EnterpriseUser', [
      str('employeeNumber'),
      str('costCenter'),
      str('organization'),
      str('division'),
      str('department'),
    ]),
    schemaDoc(base, SCHEMA.group, 'Group', [
      str('displayName', { required: true, uniqueness: 'server' }),
      str('externalId', { caseExact: true }),
      {
        name: 'members',
        type: 'complex',
        multiValued: true,
        subAttributes: [
          str('value', { mutability: 'immutable' }),
          { name: '$ref', type: 'reference', referenceTypes: ['User'], mutability: 'immutable' },
          str('display', { mutability: 'readOnly' }),
        ],
      },
    ]),
  ];
}

export function resourceTypes(base: string): Record<string, unknown>[] {
  return [
    {
      schemas: [SCHEMA.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A member of the organization',
      schema: SCHEMA.user,
      schemaExtensions: [{ schema: SCHEMA.enterpriseUser, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [SCHEMA.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A cohort of the organization',
      schema: SCHEMA.group,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

export function serviceProviderConfig(base: string, docs: string): Record<string, unknown> {
  return {
    schemas: [SCHEMA.serviceProviderConfig],
    documentationUri: docs,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'The SCIM token of the organization (svc_scim_...) in the Authorization header',
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}
