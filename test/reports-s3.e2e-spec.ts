import { reportsSuite } from './cases/reports.cases';

reportsSuite('s3');
