import { EMPTY_LIST, clampList, moveSelection, reselect, visibleRows } from './list-state';

describe('list state', () => {
  it('moves within the list and scrolls the window to keep the selection on screen', () => {
    let s = EMPTY_LIST;
    s = moveSelection(s, 'up', 10, 3);
    expect(s).toEqual({ index: 0, top: 0 });
    for (let i = 0; i < 4; i++) s = moveSelection(s, 'down', 10, 3);
    expect(s).toEqual({ index: 4, top: 2 });
    expect(moveSelection(s, 'end', 10, 3)).toEqual({ index: 9, top: 7 });
    expect(moveSelection(s, 'pageDown', 10, 3)).toEqual({ index: 7, top: 5 });
    expect(moveSelection(s, 'pageUp', 10, 3)).toEqual({ index: 1, top: 1 });
    expect(moveSelection(s, 'home', 10, 3)).toEqual({ index: 0, top: 0 });
  });

  it('stays valid when the list shrinks or empties', () => {
    expect(clampList({ index: 8, top: 6 }, 4, 3)).toEqual({ index: 3, top: 1 });
    expect(clampList({ index: 8, top: 6 }, 0, 3)).toEqual(EMPTY_LIST);
  });

  it('follows the selected row when new rows arrive above it', () => {
    const before = { index: 1, top: 0 };
    expect(reselect(before, 'b', ['new1', 'new2', 'a', 'b', 'c'], 3)).toEqual({ index: 3, top: 2 });
    expect(reselect(before, 'gone', ['a', 'b'], 3)).toEqual({ index: 1, top: 0 });
  });

  it('shows the rows of the window', () => {
    expect(visibleRows(['a', 'b', 'c', 'd'], { index: 2, top: 1 }, 2)).toEqual(['b', 'c']);
  });
});
