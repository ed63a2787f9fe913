import { type KeyboardEvent, useId, useState } from 'react';
import { moveActive, searchTerm, withPicked } from '../lib/combobox';

interface ComboboxProps {
  /** The form field's name: the form reads the text as typed or picked. */
  name: string;
  label: string;
  defaultValue?: string;
  /** The known values for the text being typed (already searched by the caller). */
  options: readonly string[];
  /** Called with the term searched (a list's last item) as the user types or opens the list. */
  onSearch: (term: string) => void;
  /** Comma-separated list: a pick replaces the last item. */
  list?: boolean;
  loading?: boolean;
}

/**
 * A text field with a list of known values (WAI-ARIA combobox): typing filters, ArrowDown/Up
 * move, Enter picks, Escape closes; free text stays allowed.
 */
export function Combobox({ name, label, defaultValue = '', options, onSearch, list = false, loading = false }: ComboboxProps) {
  const id = useId();
  const listId = `${id}-list`;
  const [text, setText] = useState(defaultValue);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const shown = open && (options.length > 0 || loading);

  const show = (value: string) => {
    setOpen(true);
    setActive(-1);
    onSearch(searchTerm(value, list));
  };
  const pick = (value: string) => {
    setText(withPicked(text, value, list));
    setOpen(false);
    setActive(-1);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape' && open) {
      e.preventDefault();
      setOpen(false);
    } else if (e.key === 'Enter' && shown && active >= 0 && options[active] !== undefined) {
      // The pick, not the form's submit.
      e.preventDefault();
      pick(options[active]);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) show(text);
      setActive((a) => moveActive(a, options.length, e.key));
    }
  };

  return (
    // The list outside the label, so the field's accessible name is the label alone.
    <div className="combobox">
      <label>
        {label}
        <input
          name={name}
          value={text}
          role="combobox"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={shown}
          aria-controls={listId}
          aria-activedescendant={shown && active >= 0 ? `${listId}-${active}` : undefined}
          onChange={(e) => {
            setText(e.target.value);
            show(e.target.value);
          }}
          onFocus={() => show(text)}
          onBlur={() => setOpen(false)}
          onKeyDown={onKeyDown}
        />
      </label>
      {/* Named without the field's label, which would otherwise also find the list. */}
      <ul id={listId} role="listbox" aria-label="Known values" hidden={!shown}>
        {loading && options.length === 0 && <li className="muted">Loading…</li>}
        {options.map((option, i) => (
          <li
            key={option}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            // Before the input's blur, so the pick lands.
            onMouseDown={(e) => {
              e.preventDefault();
              pick(option);
            }}
          >
            {option}
          </li>
        ))}
      </ul>
    </div>
  );
}
