/**
 * The privacy area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export {
  eraserStep,
  ERASURE_GRACE_MS,
  ERASURE_LEASE_MS,
  ErasureService,
  STEP_FINISH,
  STEP_OWNERS,
} from './erasure.service';
export { GuardianConsentService } from './guardian-consent.service';
export { PrivacyExportsService } from './privacy-exports.service';
