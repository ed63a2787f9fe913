export * from './outbound-post';
export * from './webhook-caller';
export * from './judge-caller';
export * from './judge-evaluation';
export * from './settled-run';
