/**
 * Structural check of an OTLP/JSON ExportLogsServiceRequest, as `validateOtlpRequest` checks
 * traces: paths in every message, unknown fields ignored, `null` absent.
 */
import {
  type Problems,
  checkAnyValue,
  checkAttributes,
  checkExportRequest,
  isAbsent,
  isObj,
  optionalEnum,
  optionalString,
  optionalUnixNano,
} from '../otlp-checks';

/** A record's trace or span id: absent or empty (no span), else hex of that length. */
function optionalHex(value: unknown, digits: 16 | 32, path: string, problems: Problems): void {
  if (isAbsent(value) || value === '') return;
  const pattern = digits === 32 ? /^[0-9a-f]{32}$/i : /^[0-9a-f]{16}$/i;
  if (typeof value !== 'string' || !pattern.test(value)) problems.add(path, `must be empty or ${digits} hex characters`);
}

function checkLogRecord(record: unknown, path: string, problems: Problems): void {
  if (!isObj(record)) return problems.add(path, 'must be an object');
  optionalUnixNano(record.timeUnixNano, `${path}.timeUnixNano`, problems);
  optionalUnixNano(record.observedTimeUnixNano, `${path}.observedTimeUnixNano`, problems);
  optionalEnum(record.severityNumber, `${path}.severityNumber`, problems);
  optionalString(record.severityText, `${path}.severityText`, problems);
  optionalString(record.eventName, `${path}.eventName`, problems);
  optionalHex(record.traceId, 32, `${path}.traceId`, problems);
  optionalHex(record.spanId, 16, `${path}.spanId`, problems);
  checkAttributes(record.attributes, `${path}.attributes`, problems);
  if (!isAbsent(record.body)) checkAnyValue(record.body, `${path}.body`, problems);
}

/**
 * Checks that `body` is an OTLP/JSON ExportLogsServiceRequest and counts its log records.
 * Throws DomainError VALIDATION_ERROR listing the problems with their paths
 * (`resourceLogs[0].scopeLogs[0].logRecords[2].spanId: must be empty or 16 hex characters`);
 * never throws anything else, whatever the JSON.
 */
export function validateOtlpLogsRequest(body: unknown): { recordCount: number } {
  const recordCount = checkExportRequest(
    body,
    'ExportLogsServiceRequest',
    { resources: 'resourceLogs', scopes: 'scopeLogs', items: 'logRecords' },
    checkLogRecord,
  );
  return { recordCount };
}
