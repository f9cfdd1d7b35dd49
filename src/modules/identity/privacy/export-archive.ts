import { Readable } from 'node:stream';
import type { ZipArchive as ZipArchiveClass } from 'archiver';
import type { Locale } from '@/core/mail/mail-template';
import type { ExportedRow } from '@/core/privacy/personal-data';

/** One section of an area's file: its rows, streamed or loaded. */
export interface ExportSection {
  readonly key: string;
  readonly rows: () => AsyncIterable<ExportedRow> | Promise<ExportedRow[]>;
}

/** One file of the export: `<area>.json` with a key per section. */
export interface ExportArea {
  readonly area: string;
  readonly sections: readonly ExportSection[];
}

export interface ManifestFile {
  name: string;
  area: string;
  records: number;
}

export interface Manifest {
  format_version: 1;
  generated_at: string;
  user_id: string;
  files: ManifestFile[];
}

/** JSON of a value, with dates as ISO strings and bigints as numbers. */
function json(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

async function* rowsOf(source: AsyncIterable<ExportedRow> | Promise<ExportedRow[]>): AsyncIterable<ExportedRow> {
  if (source instanceof Promise) {
    for (const row of await source) yield row;
    return;
  }
  yield* source;
}

/**
 * The text of one area's file, produced as it is read: `{"<section>": [row, ...], ...}`, one row a line. Rows are
 * fetched only when the archive reaches the file, so one area at a time is in memory (or one row, when the
 * handler streams).
 */
async function* areaJson(area: ExportArea, counted: ManifestFile): AsyncIterable<string> {
  yield '{';
  let firstSection = true;
  for (const section of area.sections) {
    yield `${firstSection ? '' : ','}\n${json(section.key)}: [`;
    firstSection = false;
    let first = true;
    let batch: string[] = [];
    for await (const row of rowsOf(section.rows())) {
      batch.push(`${first ? '' : ','}\n  ${json(row)}`);
      first = false;
      counted.records++;
      if (batch.length >= 500) {
        yield batch.join('');
        batch = [];
      }
    }
    if (batch.length) yield batch.join('');
    yield first ? ']' : '\n]';
  }
  yield '\n}\n';
}

const README: Record<Locale, (m: Manifest) => string> = {
  es: (m) =>
    [
      'Copia de tus datos personales',
      '=============================',
      '',
      `Generada el ${m.generated_at} (UTC) para la cuenta ${m.user_id}.`,
      '',
      'Cada archivo JSON reúne los datos de un área del servicio; dentro, cada clave es una sección con tus filas.',
      'manifest.json enumera los archivos con el número de registros de cada uno.',
      'Las fechas están en UTC (ISO 8601). No se incluyen contraseñas, códigos, secretos ni datos personales de',
      'otras personas: cuando alguien más aparece (un rival, un comentario) va sin nombre ni identificador.',
      '',
      'Archivos:',
      ...m.files.map((f) => `- ${f.name}: ${f.records} registros`),
      '',
    ].join('\n'),
  en: (m) =>
    [
      'A copy of your personal data',
      '============================',
      '',
      `Generated on ${m.generated_at} (UTC) for account ${m.user_id}.`,
      '',
      'Each JSON file holds the data of one area of the service; inside, each key is a section with your rows.',
      'manifest.json lists the files with the number of records in each.',
      'Times are UTC (ISO 8601). Passwords, codes, secrets and other people’s personal data are never included:',
      'where someone else appears (an opponent, a comment) they carry no name or id.',
      '',
      'Files:',
      ...m.files.map((f) => `- ${f.name}: ${f.records} records`),
      '',
    ].join('\n'),
};

/**
 * The export ZIP as a stream (extensions-v2 17.3): one `<area>.json` per registered area, then `manifest.json` and
 * a README in the person's language (written last, when the counts are known). Nothing is buffered beyond one
 * batch of rows and the compressor's window. `manifest` is filled in as the files are written.
 */
export function exportArchive(
  areas: readonly ExportArea[],
  meta: { userId: string; generatedAt: Date; locale: Locale },
): { stream: Readable; finalize: () => Promise<void>; manifest: Manifest } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ZipArchive } = require('archiver') as { ZipArchive: typeof ZipArchiveClass };
  const archive = new ZipArchive({ zlib: { level: 6 } });
  const manifest: Manifest = {
    format_version: 1,
    generated_at: meta.generatedAt.toISOString(),
    user_id: meta.userId,
    files: [],
  };
  const date = meta.generatedAt;
  // Entries are appended one at a time, each once the previous one is written: one area's rows are read at a
  // time (on one connection), and the manifest and README go last, when every count is final.
  const queue: { name: string; source: () => Readable | string }[] = [];
  for (const area of areas) {
    const file: ManifestFile = { name: `${area.area}.json`, area: area.area, records: 0 };
    manifest.files.push(file);
    queue.push({ name: file.name, source: () => Readable.from(areaJson(area, file)) });
  }
  queue.push({ name: 'manifest.json', source: () => `${JSON.stringify(manifest, null, 2)}\n` });
  queue.push({ name: 'README.txt', source: () => README[meta.locale](manifest) });
  const finalize = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      archive.on('error', reject);
      const next = (): void => {
        const item = queue.shift();
        if (!item) {
          archive.off('entry', next);
          archive.finalize().then(resolve, reject);
          return;
        }
        const source = item.source();
        // Archiver does not watch its sources: a failing exporter would hang the archive. Its error ends the
        // archive (and so the FileStore's write, which removes its temporary file) with that error.
        if (typeof source !== 'string') source.once('error', (err) => archive.destroy(err));
        archive.append(source, { name: item.name, date });
      };
      archive.on('entry', next);
      next();
    });
  return { stream: archive, finalize, manifest };
}
