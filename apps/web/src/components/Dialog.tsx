import { type ReactNode, useEffect, useRef } from 'react';

/** A modal dialog on the native <dialog>: focus moves in, Escape closes, the page behind is inert. */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onClose={onClose} className="dialog">
      <h2 id="dialog-title">{title}</h2>
      {children}
      <button type="button" onClick={() => ref.current?.close()}>
        Close
      </button>
    </dialog>
  );
}
