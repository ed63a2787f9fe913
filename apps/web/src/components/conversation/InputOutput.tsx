import { type ConversationView, toConversation } from '@app/domain/conversation';
import { useMemo, useState } from 'react';
import { JsonView } from '../JsonView';
import { Conversation, FORMAT_LABELS, type ToolIndex, indexTools } from './Conversation';

/** A bare string reads the same as text: it gets no guessed role and no toggle. */
const viewOf = (value: unknown, side: 'input' | 'output'): ConversationView =>
  typeof value === 'string' ? { kind: 'json', value } : toConversation(value, side);

function Side({
  value,
  view,
  raw,
  label,
  tools,
}: {
  value: unknown;
  view: ConversationView;
  raw: boolean;
  label: string;
  tools: ToolIndex;
}) {
  if (raw || view.kind === 'json') return <JsonView value={value} label={label} />;
  return <Conversation turns={view.turns} format={view.format} extra={view.extra} label={label} tools={tools} />;
}

/**
 * A span's (or trace's) input and output as conversations where a known message format is
 * recognized, with one toggle to the JSON as sent. `scope` prefixes the labels ("Trace").
 */
export function InputOutput({ input, output, scope }: { input: unknown; output: unknown; scope?: string }) {
  const inputView = useMemo(() => viewOf(input, 'input'), [input]);
  const outputView = useMemo(() => viewOf(output, 'output'), [output]);
  const tools = useMemo(
    () => indexTools([inputView, outputView].flatMap((v) => (v.kind === 'conversation' ? v.turns : []))),
    [inputView, outputView],
  );
  const [raw, setRaw] = useState(false);
  const formats = [...new Set([inputView, outputView].flatMap((v) => (v.kind === 'conversation' ? [FORMAT_LABELS[v.format]] : [])))];
  const inputLabel = scope ? `${scope} input` : 'Input';
  const outputLabel = scope ? `${scope} output` : 'Output';
  return (
    <div className="input-output">
      {formats.length > 0 && (
        <div className="view-toggle" role="group" aria-label={`${inputLabel} and output view`}>
          <button type="button" aria-pressed={!raw} onClick={() => setRaw(false)}>
            Conversation
          </button>
          <button type="button" aria-pressed={raw} onClick={() => setRaw(true)}>
            JSON
          </button>
          <span className="muted">read as {formats.join(', ')}</span>
        </div>
      )}
      <h3>Input</h3>
      <Side value={input} view={inputView} raw={raw} label={inputLabel} tools={tools} />
      <h3>Output</h3>
      <Side value={output} view={outputView} raw={raw} label={outputLabel} tools={tools} />
    </div>
  );
}
