import type { Response } from 'express';
import type { ErrorDetail } from './api-error';
import type { ErrorCode } from './error-codes';

export interface ErrorEnvelopeBody {
  error: { code: ErrorCode; message: string; request_id?: string; details?: ErrorDetail[] };
}

/** Writes the error envelope. The one place that shapes an error body. */
export function sendErrorEnvelope(
  res: Response,
  status: number,
  code: ErrorCode,
  message: string,
  requestId: string | undefined,
  details?: ErrorDetail[],
  headers?: Record<string, string>,
): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  const body: ErrorEnvelopeBody = { error: { code, message } };
  if (requestId) body.error.request_id = requestId;
  if (details && details.length > 0) body.error.details = details;
  res.status(status).json(body);
}
