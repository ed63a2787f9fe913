import { errorMessage } from '../rpc';

/** A failed read or action, as the server words it (naming the field); nothing while there is none. */
export function ErrorAlert({ error }: { error: unknown }) {
  if (!error) return null;
  return <p role="alert">{errorMessage(error)}</p>;
}
