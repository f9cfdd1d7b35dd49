import { reportsSuite } from './reports.cases';

reportsSuite('s3');
