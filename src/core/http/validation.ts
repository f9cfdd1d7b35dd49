import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { ApiError, type ErrorDetail } from './api-error';

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {})) out.push({ field, message });
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];
type Metadata = ReturnType<Lookup>;
const MEMOIZED = Symbol('memoized');

/**
 * class-validator looks up a DTO's rules on every `validate` call by filtering its rules and walking every class
 * it knows (`instanceof` against each, for inherited rules): work that grows with the number of DTOs in the
 * application (6 % of a leaderboard read's CPU, bench/README.md, pipeline-perf), for an answer that only changes
 * when a rule is added (decorators run as classes load). Both look-ups are remembered per class and options, and
 * forgotten whenever a rule or schema is added.
 */
export function memoizeValidationMetadata(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [MEMOIZED]?: true };
  if (marked[MEMOIZED]) return;
  marked[MEMOIZED] = true;
  let byTarget = new WeakMap<object, Map<string, Metadata>>();
  let grouped = new WeakMap<Metadata, ReturnType<Storage['groupByPropertyName']>>();
  const forget = (): void => {
    byTarget = new WeakMap();
    grouped = new WeakMap();
  };
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const addMetadata = storage.addValidationMetadata.bind(storage);
  const addSchema = storage.addValidationSchema.bind(storage);
  storage.addValidationMetadata = (metadata) => {
    forget();
    addMetadata(metadata);
  };
  storage.addValidationSchema = (schema) => {
    forget();
    addSchema(schema);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let forTarget = byTarget.get(target);
    if (forTarget === undefined) {
      forTarget = new Map();
      byTarget.set(target, forTarget);
    }
    let found = forTarget.get(key);
    if (found === undefined) {
      found = lookup(target, schema, always, strictGroups, groups);
      forTarget.set(key, found);
    }
    return found;
  };
  storage.groupByPropertyName = (metadata) => {
    let found = grouped.get(metadata);
    if (found === undefined) {
      found = group(metadata);
      grouped.set(metadata, found);
    }
    return found;
  };
}

/**
 * Validates every body, query and path DTO: unknown fields are refused, values are transformed to their
 * declared types, and a failure is 422 `validation_error` with one detail per broken rule.
 */
export function createValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => ApiError.validation(flatten(errors)),
  });
}

export { flatten as flattenValidationErrors };
