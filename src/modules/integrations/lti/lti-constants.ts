/** Claim names, scopes and vocabularies of LTI 1.3 Advantage (1EdTech), in one place. */
export const LTI_CLAIM = {
  messageType: 'https://purl.imsglobal.org/spec/lti/claim/message_type',
  version: 'https://purl.imsglobal.org/spec/lti/claim/version',
  deploymentId: 'https://purl.imsglobal.org/spec/lti/claim/deployment_id',
  targetLinkUri: 'https://purl.imsglobal.org/spec/lti/claim/target_link_uri',
  resourceLink: 'https://purl.imsglobal.org/spec/lti/claim/resource_link',
  roles: 'https://purl.imsglobal.org/spec/lti/claim/roles',
  context: 'https://purl.imsglobal.org/spec/lti/claim/context',
  toolPlatform: 'https://purl.imsglobal.org/spec/lti/claim/tool_platform',
  launchPresentation: 'https://purl.imsglobal.org/spec/lti/claim/launch_presentation',
  custom: 'https://purl.imsglobal.org/spec/lti/claim/custom',
  ags: 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint',
  nrps: 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice',
  deepLinkingSettings: 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings',
  deepLinkingData: 'https://purl.imsglobal.org/spec/lti-dl/claim/data',
  deepLinkingContentItems: 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items',
} as const;

export const LTI_SCOPE = {
  lineItem: 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
  lineItemReadonly: 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly',
  resultReadonly: 'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
  score: 'https://purl.imsglobal.org/spec/lti-ags/scope/score',
  membership: 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
} as const;

export const LTI_SCOPES: readonly string[] = Object.values(LTI_SCOPE);
export const AGS_SCOPES: readonly string[] = [
  LTI_SCOPE.lineItem,
  LTI_SCOPE.lineItemReadonly,
  LTI_SCOPE.resultReadonly,
  LTI_SCOPE.score,
];

export const LTI_ROLE = {
  learner: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner',
  instructor: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor',
  administrator: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator',
  institutionAdministrator: 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator',
} as const;

export type LtiMessageType = 'LtiResourceLinkRequest' | 'LtiDeepLinkingRequest';

export const PRODUCT_FAMILY_CODE = 'learning-platform';
export const LTI_MAX_TOOLS = 100;
/** Lifetimes in seconds. */
export const LOGIN_HINT_TTL = 300;
export const ID_TOKEN_TTL = 300;
export const NONCE_TTL = 600;
export const ACCESS_TOKEN_TTL = 3600;
export const DEEP_LINKING_DATA_TTL = 3600;
export const REGISTRATION_TTL = 3600;
/** A rotated key stays in the JWKS this long, so tokens it signed still verify. */
export const RETIRED_KEY_GRACE_MS = 7 * 24 * 3600 * 1000;
export const LAUNCH_RETENTION_DAYS = 90;

/** The roles of an organization member, as LTI names them (the launch and the roster use the same mapping). */
export function ltiRoles(role: 'owner' | 'admin' | 'teacher' | 'student'): string[] {
  switch (role) {
    case 'student':
      return [LTI_ROLE.learner];
    case 'teacher':
      return [LTI_ROLE.instructor];
    default:
      return [LTI_ROLE.administrator, LTI_ROLE.institutionAdministrator];
  }
}
