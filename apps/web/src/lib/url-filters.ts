/**
 * Readers of the list filters kept in the URL (so a filtered list can be shared and survives a
 * reload): an empty value is no filter; a time, typed in local time, is sent as ISO.
 */
export function urlFilterReaders(params: URLSearchParams) {
  const text = (k: string) => params.get(k) || undefined;
  const num = (k: string) => (params.get(k) ? Number(params.get(k)) : undefined);
  const time = (k: string) => (params.get(k) ? new Date(params.get(k) as string).toISOString() : undefined);
  return { text, num, time };
}
