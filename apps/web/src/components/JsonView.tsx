/** Long strings fold behind a <details>, so a 50 KB prompt does not push everything else away. */
const FOLD_AT = 600;

function Folded({ text }: { text: string }) {
  if (text.length <= FOLD_AT) return <pre className="json">{text}</pre>;
  return (
    <details className="fold">
      <summary>
        <pre className="json">{text.slice(0, FOLD_AT)}…</pre>
        <span className="more">Show all {text.length.toLocaleString('en-US')} characters</span>
      </summary>
      <pre className="json">{text}</pre>
    </details>
  );
}

/** A span's input, output, attributes: strings as text, anything else as pretty-printed JSON. */
export function JsonView({ value, label }: { value: unknown; label: string }) {
  if (value === null || value === undefined) return <p className="muted">No {label.toLowerCase()}.</p>;
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    <section aria-label={label} className="json-view">
      <Folded text={text} />
    </section>
  );
}
