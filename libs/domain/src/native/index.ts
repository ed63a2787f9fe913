export { type FactTarget, nativeEventsToFacts } from './native-to-facts';
export { type NativeBatchValidation, type NativeEventError, type ValidNativeEvent, validateNativeBatch } from './validate-native-batch';
export {
  EventCreateBody,
  GenerationCreateBody,
  GenerationUpdateBody,
  NATIVE_EVENT_BODIES,
  NATIVE_EVENT_TYPES,
  NativeEventEnvelope,
  type NativeEventBody,
  type NativeEventType,
  ScoreBody,
  type ScoreValue,
  SdkLogBody,
  SpanCreateBody,
  SpanUpdateBody,
  TraceCreateBody,
  UsageBody,
  scoreDataTypeOf,
  writesSpan,
} from './native-events.dto';
