/**
 * Test support of the users area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { UserEntity } from './entities/user.entity';
export { AccountPersonalData } from './users.personal-data';
export { UsersRepository } from './users.repository';
