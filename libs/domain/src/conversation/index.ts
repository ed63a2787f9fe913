export * from './types';
export { CONVERSATION_FORMATS, toConversation } from './to-conversation';
export { prettyJson } from './pretty-json';
