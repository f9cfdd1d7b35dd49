// npm run migration:generate -- Name
// Builds, then asks TypeORM to compare the entities with the database of DATABASE_URL and writes the difference
// as migrations/<timestamp>-Name.ts. Add the new class to migrations/index.ts (a unit test reminds you).
import { execFileSync } from 'node:child_process';

const name = process.argv[2];
if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name)) {
  console.error('usage: npm run migration:generate -- Name   (PascalCase)');
  process.exit(1);
}
if (!process.env.DATABASE_URL) {
  console.error('Set DATABASE_URL to a database migrated to the current head.');
  process.exit(1);
}
execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
execFileSync(
  process.execPath,
  [
    'node_modules/typeorm/cli.js',
    'migration:generate',
    '-d',
    'dist/src/core/database/cli-data-source.js',
    '--pretty',
    `migrations/${name}`,
  ],
  { stdio: 'inherit' },
);
