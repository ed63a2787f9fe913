export {
  ClosedDto,
  type DtoCheck,
  type DtoClass,
  type FieldRefusal,
  type FieldRule,
  Optional,
  Required,
  UpdateOf,
  fieldNamesOf,
  isFieldDto,
  refusalsOf,
  schemaOf,
  toDto,
  validateDto,
} from './fields';
export type { JsonSchema } from './json-schema';
export * from './rules';
