/** The pure rules of the filter pickers (components/Combobox): keys move the highlight, a pick fills the text. */

/** The option highlighted after a key: ArrowDown/ArrowUp wrap around; Home/End jump; -1 is none. */
export function moveActive(active: number, count: number, key: string): number {
  if (count === 0) return -1;
  switch (key) {
    case 'ArrowDown':
      return active >= count - 1 ? 0 : active + 1;
    case 'ArrowUp':
      return active <= 0 ? count - 1 : active - 1;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return Math.min(active, count - 1);
  }
}

/** What the picker searches for: the whole text, or for a comma-separated list its last item. */
export function searchTerm(text: string, list: boolean): string {
  return (list ? (text.split(',').pop() ?? '') : text).trim();
}

/** The text after picking `value`: it, or for a list the items before the last one followed by it. */
export function withPicked(text: string, value: string, list: boolean): string {
  if (!list) return value;
  const items = text
    .split(',')
    .slice(0, -1)
    .map((t) => t.trim())
    .filter(Boolean);
  return [...items, value].join(', ');
}
