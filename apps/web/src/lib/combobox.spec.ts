import { moveActive, searchTerm, withPicked } from './combobox';

describe(moveActive.name, () => {
  it('moves the highlight and wraps around, none without options', () => {
    expect(moveActive(-1, 3, 'ArrowDown')).toBe(0);
    expect(moveActive(2, 3, 'ArrowDown')).toBe(0);
    expect(moveActive(0, 3, 'ArrowUp')).toBe(2);
    expect(moveActive(-1, 3, 'ArrowUp')).toBe(2);
    expect(moveActive(1, 3, 'Home')).toBe(0);
    expect(moveActive(0, 3, 'End')).toBe(2);
    expect(moveActive(4, 2, 'x')).toBe(1);
    expect(moveActive(1, 0, 'ArrowDown')).toBe(-1);
  });
});

describe(searchTerm.name, () => {
  it('searches the whole text, or a list’s last item', () => {
    expect(searchTerm(' gpt ', false)).toBe('gpt');
    expect(searchTerm('a, b, Be', true)).toBe('Be');
    expect(searchTerm('a,', true)).toBe('');
  });
});

describe(withPicked.name, () => {
  it('replaces the text, or a list’s last item', () => {
    expect(withPicked('gp', 'gpt-4o', false)).toBe('gpt-4o');
    expect(withPicked('prod, be', 'Beta', true)).toBe('prod, Beta');
    expect(withPicked('', 'Beta', true)).toBe('Beta');
  });
});
