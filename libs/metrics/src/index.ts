export * from './metrics';
export * from './registry';
