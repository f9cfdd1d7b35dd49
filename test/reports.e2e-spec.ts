import { reportsSuite } from './cases/reports.cases';

reportsSuite('file');
