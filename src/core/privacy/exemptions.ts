/**
 * Tables with a person-like column that hold no personal data of their own, each with the reason. Every other
 * such table must be covered by a `@PersonalData` handler (a test walks the schema).
 */
export const PERSONAL_DATA_EXEMPTIONS: Readonly<Record<string, string>> = {
  lti_deployments:
    '`send_email` is an organization’s privacy setting for an LTI tool (a boolean), not an address; no person column.',
  domain_events:
    'Holds only ids (pseudonyms), enums and numbers by catalog rule, and is pruned 30 days after delivery.',
  domain_event_deliveries: 'Delivery bookkeeping per event and subscriber; no person columns beyond the event id.',
  jobs: 'Outbox bookkeeping; payloads with personal content are sealed and erased when the job completes.',
  institutes:
    "`contact_email` is an institution's contact address, entered by organization admins: not a person's account, " +
    'and no user id leads to it.',
  email_suppressions:
    'Kept on erasure (extensions-v2 17.4): it stores only a keyed hash of the address and a masked form, never the ' +
    'address, and must keep stopping mail to an address that bounced or complained.',
};
