/**
 * Test support of the certificates area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export {
  EXPORT_SEPARATORS,
  exportCells,
  exportHeaders,
  type ExportRow,
  type ExportSeparator,
} from './certificate-export';
export { CertificatesRepository } from './certificates.repository';
export { LOGO_FETCH_TIMEOUT_MS } from './logo-fetcher';
