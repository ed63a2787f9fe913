export * from './bounded-pattern';
export * from './built-in-prices';
export * from './cost';
export * from './price-definition';
export * from './price-table';
export * from './price-spans';
export * from './model-definition';
export * from './price-tiers';
