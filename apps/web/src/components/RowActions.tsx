import type { ReactNode } from 'react';

/** The header of a table's actions column: named for screen readers, blank on screen. */
export function ActionsHead() {
  return (
    <th scope="col">
      <span className="visually-hidden">Actions</span>
    </th>
  );
}

/**
 * A row's action that cannot be undone: it runs only once the person said yes to `question`.
 * `label` is what the button says, `of` the row it acts on (read by screen readers only).
 */
export function ConfirmButton({
  label,
  of,
  question,
  onConfirm,
}: {
  label: string;
  of: ReactNode;
  question: string;
  onConfirm: () => void;
}) {
  return (
    <button
      type="button"
      onClick={() => {
        if (window.confirm(question)) onConfirm();
      }}
    >
      {label} <span className="visually-hidden">{of}</span>
    </button>
  );
}
