import type PDFDocumentClass from 'pdfkit';
import type { Locale } from '@/core/mail/mail-template';
import type { CertificateType } from './certificate-code';
import type { CertificateStatus } from './certificate-export';
import type { CertificateTemplate } from './certificate-template';
import type { LogoImage } from './logo-fetcher';

export interface CertificatePdfInput {
  lang: Locale;
  template: CertificateTemplate & { issuer_name: string };
  /** Null once the holder's account was erased without keeping names on certificates (extensions-v2 17.4). */
  holderName: string | null;
  title: string;
  type: CertificateType;
  status: CertificateStatus;
  code: string;
  issuedAt: Date;
  revokedAt: Date | null;
  replacedByCode: string | null;
  verifyUrl: string;
  /** The QR code of `verifyUrl`: `size` x `size` modules, row-major, 1 = dark (qrcode's `create().modules`). */
  qr: { size: number; data: ArrayLike<number> };
  logo: LogoImage | null;
  /** A template preview: a large MUESTRA / SAMPLE mark across the page (16.2). */
  sample?: boolean;
}

const TEXT: Record<
  Locale,
  {
    heading: Record<CertificateType, string>;
    certifies: string;
    completed: Record<CertificateType, string>;
    issuedBy: (issuer: string, date: string) => string;
    code: string;
    verifyAt: string;
    nameRemoved: string;
    mark: Record<Exclude<CertificateStatus, 'active'>, string>;
    notice: (status: Exclude<CertificateStatus, 'active'>, date: string, replacedBy: string | null) => string;
  }
> = {
  en: {
    heading: { course: 'CERTIFICATE OF COMPLETION', program: 'PROGRAM CERTIFICATE' },
    certifies: 'This certifies that',
    completed: { course: 'has successfully completed the course', program: 'has successfully completed the program' },
    issuedBy: (issuer, date) => `Issued by ${issuer} on ${date}`,
    code: 'Verification code',
    verifyAt: 'Verify at',
    nameRemoved: '(name removed at the holder’s request)',
    mark: { revoked: 'REVOKED', replaced: 'REPLACED' },
    notice: (status, date, replacedBy) =>
      status === 'revoked'
        ? `This certificate was revoked on ${date} and is no longer valid.`
        : `This certificate was replaced on ${date} by certificate ${replacedBy ?? ''} and is no longer valid.`,
  },
  es: {
    heading: { course: 'CERTIFICADO DE FINALIZACIÓN', program: 'CERTIFICADO DE PROGRAMA' },
    certifies: 'Se certifica que',
    completed: { course: 'ha completado con éxito el curso', program: 'ha completado con éxito el programa' },
    issuedBy: (issuer, date) => `Emitido por ${issuer} el ${date}`,
    code: 'Código de verificación',
    verifyAt: 'Verifícalo en',
    nameRemoved: '(nombre retirado a petición de su titular)',
    mark: { revoked: 'REVOCADO', replaced: 'REEMPLAZADO' },
    notice: (status, date, replacedBy) =>
      status === 'revoked'
        ? `Este certificado fue revocado el ${date} y ya no es válido.`
        : `Este certificado fue reemplazado el ${date} por el certificado ${replacedBy ?? ''} y ya no es válido.`,
  },
};

/** Characters the standard PDF fonts (WinAnsi) can show, beyond Latin-1. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
/** Latin letters that no Unicode decomposition maps to a base letter. */
const LATIN_FALLBACK: Record<string, string> = {
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Ŀ: 'L',
  ŀ: 'l',
  Ŧ: 'T',
  ŧ: 't',
  Ŋ: 'N',
  ŋ: 'n',
  ſ: 's',
};

/**
 * Text in the standard fonts' encoding: characters outside it lose their accents when that maps them into it
 * (`ș` becomes `s`, `Ł` becomes `L`), else become `?`. The standard fonts are used so the service needs no font
 * files; a Unicode font would be the next step for names in other scripts.
 */
export function toWinAnsi(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || WIN_ANSI_EXTRA.has(ch)) {
      out += ch;
      continue;
    }
    if (LATIN_FALLBACK[ch]) {
      out += LATIN_FALLBACK[ch];
      continue;
    }
    const stripped = ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
    out +=
      [...stripped].every((c) => c.codePointAt(0)! >= 0x20 && c.codePointAt(0)! <= 0xff) && stripped ? stripped : '?';
  }
  return out;
}

export function formatDay(date: Date, lang: Locale): string {
  return new Intl.DateTimeFormat(lang === 'es' ? 'es-ES' : 'en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(
    date,
  );
}

/**
 * The QR code as vector squares, one per dark module: sharp at any print size, and about 40x cheaper than
 * encoding a PNG and having the PDF library decode it again (measured in bench/README.md).
 */
function drawQr(
  doc: PDFKit.PDFDocument,
  qr: { size: number; data: ArrayLike<number> },
  x: number,
  y: number,
  side: number,
): void {
  const m = side / qr.size;
  doc.save();
  for (let row = 0; row < qr.size; row++) {
    for (let col = 0; col < qr.size; col++) {
      if (qr.data[row * qr.size + col]) doc.rect(x + col * m, y + row * m, m, m);
    }
  }
  doc.fill('#000000');
  doc.restore();
}

/** Renders one certificate: A4 landscape, the organization's template, the verification code and its QR code. */
export function renderCertificatePdf(input: CertificatePdfInput): Promise<Buffer> {
  const t = TEXT[input.lang];
  const accent = input.template.accent_color ?? '#1F4E79';
  // Loaded by the first PDF drawn, not at start (pdfkit and fontkit are ~150 modules).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const PDFDocument = require('pdfkit') as typeof PDFDocumentClass;
  const doc = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margin: 0,
    info: {
      Title: toWinAnsi(`${t.heading[input.type]} ${input.code}`),
      Author: toWinAnsi(input.template.issuer_name),
      Subject: toWinAnsi(input.title),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const W = doc.page.width;
  const H = doc.page.height;
  // The largest size up to `max` at which the text fits on `lines` lines (long names and titles shrink).
  const fitted = (text: string, font: string, max: number, lines: number): number => {
    const width = doc.font(font).fontSize(max).widthOfString(toWinAnsi(text));
    return Math.max(10, Math.min(max, Math.floor((max * (W - 120) * lines * 0.92) / Math.max(width, 1))));
  };
  const centered = (text: string, y: number, size: number, font: string, color: string): void => {
    doc
      .font(font)
      .fontSize(size)
      .fillColor(color)
      .text(toWinAnsi(text), 60, y, { width: W - 120, align: 'center' });
  };

  doc
    .lineWidth(6)
    .strokeColor(accent)
    .rect(20, 20, W - 40, H - 40)
    .stroke();
  doc
    .lineWidth(1)
    .strokeColor(accent)
    .rect(32, 32, W - 64, H - 64)
    .stroke();

  let y = 54;
  if (input.logo) {
    try {
      doc.image(input.logo.data, W / 2 - 90, y, { fit: [180, 60], align: 'center', valign: 'center' });
    } catch {
      // A corrupt image the signature check let through: the certificate goes out without it.
    }
  }
  y = 130;
  centered(t.heading[input.type], y, 26, 'Helvetica-Bold', accent);
  centered(t.certifies, y + 50, 14, 'Helvetica', '#555555');
  if (input.holderName === null) centered(t.nameRemoved, y + 80, 16, 'Helvetica-Oblique', '#555555');
  else
    centered(input.holderName, y + 75, fitted(input.holderName, 'Helvetica-Bold', 30, 1), 'Helvetica-Bold', '#111111');
  centered(t.completed[input.type], y + 125, 14, 'Helvetica', '#555555');
  centered(input.title, y + 148, fitted(input.title, 'Helvetica-Bold', 20, 2), 'Helvetica-Bold', accent);
  centered(
    t.issuedBy(input.template.issuer_name, formatDay(input.issuedAt, input.lang)),
    y + 215,
    12,
    'Helvetica',
    '#333333',
  );

  // Signature, bottom left.
  const sigY = H - 150;
  if (input.template.signature_name || input.template.signature_title) {
    doc.lineWidth(0.8).strokeColor('#333333').moveTo(80, sigY).lineTo(300, sigY).stroke();
    doc
      .font('Helvetica-Bold')
      .fontSize(12)
      .fillColor('#111111')
      .text(toWinAnsi(input.template.signature_name ?? ''), 80, sigY + 6, { width: 220, align: 'center' });
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor('#555555')
      .text(toWinAnsi(input.template.signature_title ?? ''), 80, sigY + 22, { width: 220, align: 'center' });
  }

  // Verification, bottom right: the QR code, the code and the address.
  const qrSize = 96;
  const qrX = W - 80 - qrSize;
  const qrY = H - 80 - qrSize - 24;
  drawQr(doc, input.qr, qrX, qrY, qrSize);
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor('#555555')
    .text(`${toWinAnsi(t.code)}:`, qrX - 140, qrY + 20, { width: 130, align: 'right' });
  doc
    .font('Courier-Bold')
    .fontSize(12)
    .fillColor('#111111')
    .text(toWinAnsi(input.code), qrX - 140, qrY + 32, { width: 130, align: 'right' });
  doc
    .font('Helvetica')
    .fontSize(7)
    .fillColor('#555555')
    .text(`${toWinAnsi(t.verifyAt)} ${toWinAnsi(input.verifyUrl)}`, qrX - 260, qrY + qrSize + 6, {
      width: qrSize + 260,
      align: 'right',
    });

  if (input.template.footer_text) {
    centered(input.template.footer_text, H - 58, 9, 'Helvetica', '#777777');
  }

  if (input.sample) {
    doc.save();
    doc.rotate(-24, { origin: [W / 2, H / 2] });
    doc
      .font('Helvetica-Bold')
      .fontSize(110)
      .fillColor('#B00020')
      .fillOpacity(0.22)
      .text(input.lang === 'en' ? 'SAMPLE' : 'MUESTRA', 0, H / 2 - 60, { width: W, align: 'center' });
    doc.restore();
  }

  if (input.status !== 'active') {
    const mark = t.mark[input.status];
    const noticeDate = formatDay(input.revokedAt ?? input.issuedAt, input.lang);
    centered(t.notice(input.status, noticeDate, input.replacedByCode), 39, 10, 'Helvetica-Bold', '#B00020');
    doc.save();
    doc.rotate(-24, { origin: [W / 2, H / 2] });
    doc
      .font('Helvetica-Bold')
      .fontSize(110)
      .fillColor('#B00020')
      .fillOpacity(0.22)
      .text(mark, 0, H / 2 - 60, { width: W, align: 'center' });
    doc.restore();
  }

  doc.end();
  return done;
}
