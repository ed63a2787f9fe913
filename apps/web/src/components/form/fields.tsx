import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';

/** A choice whose value is not what it says (an id shown by its name). */
export interface Option {
  value: string;
  label: string;
}

interface Labelled<Name> {
  name: Name;
  label: string;
  /** The server's message for this field (it names the field), shown in place of the hint. */
  error?: string;
  hint?: ReactNode;
}

/**
 * The fields of one form, their ids `<prefix>-<name>` and each message's `<prefix>-<name>-msg`,
 * which the input points to (`aria-describedby`) and which reads as an error once the server
 * named the field. `Values` types the names, so a field cannot name what the form does not read.
 */
export function formFields<Values>(prefix: string) {
  type Name = Extract<keyof Values, string>;
  const ids = (name: Name) => ({ id: `${prefix}-${name}`, msg: `${prefix}-${name}-msg` });

  function Message({ id, error, hint }: { id: string; error?: string; hint?: ReactNode }) {
    return (
      <small id={id} className={error ? 'error' : 'muted'}>
        {error ?? hint ?? ''}
      </small>
    );
  }

  function Field({ name, label, error, hint, ...input }: Labelled<Name> & InputHTMLAttributes<HTMLInputElement>) {
    const { id, msg } = ids(name);
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input id={id} name={name} aria-invalid={!!error} aria-describedby={msg} {...input} />
        <Message id={msg} error={error} hint={hint} />
      </div>
    );
  }

  function TextArea({ name, label, error, hint, ...area }: Labelled<Name> & TextareaHTMLAttributes<HTMLTextAreaElement>) {
    const { id, msg } = ids(name);
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <textarea id={id} name={name} aria-invalid={!!error} aria-describedby={msg} {...area} />
        <Message id={msg} error={error} hint={hint} />
      </div>
    );
  }

  function Choice({
    name,
    label,
    options,
    error,
    hint,
    ...select
  }: Labelled<Name> & { options: readonly (string | Option)[] } & SelectHTMLAttributes<HTMLSelectElement>) {
    const { id, msg } = ids(name);
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select id={id} name={name} aria-invalid={!!error} aria-describedby={msg} {...select}>
          {options.map((o) =>
            typeof o === 'string' ? (
              <option key={o}>{o}</option>
            ) : (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ),
          )}
        </select>
        <Message id={msg} error={error} hint={hint} />
      </div>
    );
  }

  function Check({ name, label, error, ...input }: Omit<Labelled<Name>, 'hint'> & InputHTMLAttributes<HTMLInputElement>) {
    const { id, msg } = ids(name);
    return (
      <div className="field">
        <label>
          <input type="checkbox" id={id} name={name} aria-describedby={msg} {...input} /> {label}
        </label>
        <Message id={msg} error={error} />
      </div>
    );
  }

  return { Field, TextArea, Choice, Check };
}

/**
 * What a failed save says beside its fields: the messages that name no field of the form, and a
 * pointer to the fields marked when some do.
 */
export function FormErrors({ general, marked }: { general: readonly string[]; marked: boolean }) {
  return (
    <>
      {general.length > 0 && (
        <p role="alert" className="error">
          {general.join('; ')}
        </p>
      )}
      {marked && (
        <p role="alert" className="error">
          Please correct the fields marked above.
        </p>
      )}
    </>
  );
}
