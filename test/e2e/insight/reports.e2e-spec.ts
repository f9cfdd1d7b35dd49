import { reportsSuite } from './reports.cases';

reportsSuite('file');
