/**
 * The JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) a field rule states of the
 * values it accepts: only the keywords the rules use.
 */
export interface JsonSchema {
  type?:
    | 'string'
    | 'number'
    | 'integer'
    | 'boolean'
    | 'object'
    | 'array'
    | 'null'
    | readonly ('string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null')[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxProperties?: number;
  maxItems?: number;
  enum?: readonly (string | number | boolean)[];
  pattern?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: readonly JsonSchema[];
}
