import { type ConversationFormatName, type ConversationPart, type ConversationTurn, prettyJson } from '@app/domain/conversation';
import './conversation.css';

type ToolCall = Extract<ConversationPart, { kind: 'tool-call' }>;
type ToolResult = Extract<ConversationPart, { kind: 'tool-result' }>;

/** Calls and results of one span by call id, so a call's card shows its result and the result's turn points to the card. */
export interface ToolIndex {
  calls: ReadonlyMap<string, ToolCall>;
  results: ReadonlyMap<string, ToolResult>;
}

export function indexTools(turns: readonly ConversationTurn[]): ToolIndex {
  const calls = new Map<string, ToolCall>();
  const results = new Map<string, ToolResult>();
  for (const part of turns.flatMap((t) => t.parts)) {
    if (part.kind === 'tool-call' && part.id !== null) calls.set(part.id, part);
    if (part.kind === 'tool-result' && part.id !== null) results.set(part.id, part);
  }
  return { calls, results };
}

export const FORMAT_LABELS: Record<ConversationFormatName, string> = {
  text: 'prompt',
  'openai-chat': 'OpenAI chat messages',
  'openai-responses': 'OpenAI Responses items',
  anthropic: 'Anthropic messages',
  gemini: 'Gemini contents',
  'otel-genai': 'OpenTelemetry GenAI messages',
  'vercel-ai': 'Vercel AI SDK messages',
  langchain: 'LangChain messages',
};

const KNOWN_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const roleClass = (role: string) => `turn role-${KNOWN_ROLES.has(role) ? role : 'other'}`;

/** Long texts fold, as in JsonView: a 50 KB system prompt must not push the answer off the page. */
const FOLD_AT = 1200;

function Text({ text }: { text: string }) {
  if (text.length <= FOLD_AT) return <div className="turn-text">{text}</div>;
  return (
    <details className="fold">
      <summary>
        <div className="turn-text">{text.slice(0, FOLD_AT)}…</div>
        <span className="more">Show all {text.length.toLocaleString('en-US')} characters</span>
      </summary>
      <div className="turn-text">{text}</div>
    </details>
  );
}

function ToolCallCard({ call, result }: { call: ToolCall; result: ToolResult | undefined }) {
  return (
    <section className="tool-card" aria-label={`Tool call ${call.name}`}>
      <header>
        <span className="tool-kind">Tool call</span> <strong className="tool-name">{call.name}</strong>
        {call.id && <code className="tool-id">{call.id}</code>}
      </header>
      <div className="tool-label">Arguments</div>
      <pre className="json">{prettyJson(call.arguments)}</pre>
      {result && (
        <>
          <div className="tool-label">Result</div>
          <pre className="json">{prettyJson(result.content)}</pre>
        </>
      )}
    </section>
  );
}

function Part({ part, tools }: { part: ConversationPart; tools: ToolIndex }) {
  switch (part.kind) {
    case 'text':
      return <Text text={part.text} />;
    case 'image':
      // A placeholder only: the dashboard never loads what a trace points at.
      return (
        <div className="part-image" title={part.url ?? undefined}>
          Image {[part.mediaType, part.url].filter(Boolean).join(' ') || '(inline data)'}
        </div>
      );
    case 'tool-call':
      return <ToolCallCard call={part} result={part.id === null ? undefined : tools.results.get(part.id)} />;
    case 'tool-result': {
      const call = part.id === null ? undefined : tools.calls.get(part.id);
      if (call)
        return (
          <p className="tool-ref muted">
            Result of <strong>{call.name}</strong> {part.id && <code>{part.id}</code>}, shown with its call.
          </p>
        );
      return (
        <section className="tool-card" aria-label={`Tool result${part.name ? ` ${part.name}` : ''}`}>
          <header>
            <span className="tool-kind">Tool result</span> {part.name && <strong className="tool-name">{part.name}</strong>}
            {part.id && <code className="tool-id">{part.id}</code>}
          </header>
          <pre className="json">{prettyJson(part.content)}</pre>
        </section>
      );
    }
    case 'json':
      return <pre className="json">{prettyJson(part.value)}</pre>;
  }
}

/** Chat turns, each with its role; text keeps its whitespace and is never read as HTML or markdown. */
export function Conversation({
  turns,
  format,
  extra,
  label,
  tools,
}: {
  turns: readonly ConversationTurn[];
  format: ConversationFormatName;
  extra: Record<string, unknown> | null;
  label: string;
  tools: ToolIndex;
}) {
  return (
    <section aria-label={label} className="conversation" data-format={format}>
      <ol>
        {turns.map((turn, i) => (
          <li key={i} className={roleClass(turn.role)}>
            <div className="turn-role">
              {turn.role}
              {turn.name && <span className="muted"> · {turn.name}</span>}
            </div>
            {turn.parts.length ? (
              turn.parts.map((part, j) => <Part key={j} part={part} tools={tools} />)
            ) : (
              <div className="muted">(no content)</div>
            )}
          </li>
        ))}
      </ol>
      {extra && (
        <details className="conversation-extra">
          <summary>Other fields: {Object.keys(extra).join(', ')}</summary>
          <pre className="json">{prettyJson(extra)}</pre>
        </details>
      )}
    </section>
  );
}
