import { useState } from 'react';

/** Copies `value`; says so for a moment, and for screen readers through a live region. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setDone('copied');
    } catch {
      setDone('failed');
    }
    setTimeout(() => setDone(null), 1500);
  };
  return (
    <button type="button" className="copy" aria-label={`Copy ${label}`} onClick={() => void copy()}>
      {done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed' : 'Copy'}
      <span className="visually-hidden" aria-live="polite">
        {done === 'copied' ? `${label} copied` : ''}
      </span>
    </button>
  );
}

/** An id shown in monospace with its copy button. */
export function CopyableId({ label, value }: { label: string; value: string | null }) {
  if (!value) return null;
  return (
    <div className="id-line">
      <dt>{label}</dt>
      <dd>
        <code>{value}</code> <CopyButton value={value} label={label} />
      </dd>
    </div>
  );
}
