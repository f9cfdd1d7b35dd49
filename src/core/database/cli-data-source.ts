/* The data source the TypeORM CLI uses for `migration:generate`: every compiled entity, DATABASE_DIRECT_URL
   (else DATABASE_URL). */
import 'reflect-metadata';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { baseDataSourceOptions } from './data-source-options';

const url = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required to generate a migration');

export default new DataSource({
  ...baseDataSourceOptions(url, 2),
  entities: [join(__dirname, '..', '..', '**', '*.entity.js')],
});
