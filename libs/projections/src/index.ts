export * from './telemetry/decode-ingest-message';
export * from './telemetry/rebuild-telemetry';
