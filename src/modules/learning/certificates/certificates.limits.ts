import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** interface-v1 section 8: 30 verification requests per minute per client address. */
export const VERIFY_IP: RateLimitPolicy = {
  name: 'certificates.verify.ip',
  points: 30,
  durationSeconds: 60,
  key: 'ip',
};

/** Rendering a PDF (and perhaps fetching a logo) is the heaviest read here: generous for a person, tight for a script. */
export const PDF_ACCOUNT: RateLimitPolicy = {
  name: 'certificates.pdf.account',
  points: 20,
  durationSeconds: 60,
  key: 'account',
};

/** 16.2: template previews, 20 per minute per account. */
export const PREVIEW_ACCOUNT: RateLimitPolicy = {
  name: 'certificates.preview.account',
  points: 20,
  durationSeconds: 60,
  key: 'account',
};
