/**
 * The selection in a list and the window of it on screen. `top` is the first row shown;
 * the selection always stays within `height` rows of it.
 */
export interface ListState {
  index: number;
  top: number;
}

export const EMPTY_LIST: ListState = { index: 0, top: 0 };

export type ListMove = 'up' | 'down' | 'pageUp' | 'pageDown' | 'home' | 'end';

export function moveSelection(state: ListState, move: ListMove, count: number, height: number): ListState {
  const page = Math.max(1, height);
  const target = (() => {
    switch (move) {
      case 'up':
        return state.index - 1;
      case 'down':
        return state.index + 1;
      case 'pageUp':
        return state.index - page;
      case 'pageDown':
        return state.index + page;
      case 'home':
        return 0;
      case 'end':
        return count - 1;
    }
  })();
  return clampList({ index: target, top: state.top }, count, height);
}

/** The state kept valid after the list or the screen changed size. */
export function clampList(state: ListState, count: number, height: number): ListState {
  if (count <= 0) return EMPTY_LIST;
  const rows = Math.max(1, height);
  const index = Math.min(Math.max(0, state.index), count - 1);
  let top = Math.min(Math.max(0, state.top), Math.max(0, count - rows));
  if (index < top) top = index;
  if (index >= top + rows) top = index - rows + 1;
  return { index, top };
}

/**
 * After a refresh, the selection follows the row it was on (new traces arrive at the top
 * of a live list and would otherwise move it); a row that went away leaves it in place.
 */
export function reselect(state: ListState, previousId: string | undefined, ids: readonly string[], height: number): ListState {
  const found = previousId === undefined ? -1 : ids.indexOf(previousId);
  if (found < 0) return clampList(state, ids.length, height);
  return clampList({ index: found, top: state.top + (found - state.index) }, ids.length, height);
}

/** The rows on screen. */
export const visibleRows = <T>(rows: readonly T[], state: ListState, height: number): T[] =>
  rows.slice(state.top, state.top + Math.max(0, height));
