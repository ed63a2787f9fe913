export * from './applied-watermark';
export * from './telemetry/decode-ingest-message';
export * from './telemetry/telemetry-projection';
export * from './telemetry/rebuild-telemetry';
export * from './telemetry/verify-telemetry';
