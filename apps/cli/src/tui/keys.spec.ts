import { type KeyPress, MAX_LINE_LENGTH, actionFor, editLine } from './keys';

const NO_KEY: KeyPress = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageUp: false,
  pageDown: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  meta: false,
  tab: false,
  shift: false,
  backspace: false,
  delete: false,
};
const press = (key: Partial<KeyPress> = {}): KeyPress => ({ ...NO_KEY, ...key });

describe(actionFor.name, () => {
  it.each([
    ['', { upArrow: true }, { kind: 'move', move: 'up' }],
    ['', { pageDown: true }, { kind: 'move', move: 'pageDown' }],
    ['', { return: true }, { kind: 'open' }],
    ['', { rightArrow: true }, { kind: 'open' }],
    ['', { escape: true }, { kind: 'back' }],
    ['', { leftArrow: true }, { kind: 'back' }],
    ['q', {}, { kind: 'quit' }],
    ['/', {}, { kind: 'filter' }],
    ['', { tab: true }, { kind: 'nextScreen', step: 1 }],
    ['', { tab: true, shift: true }, { kind: 'nextScreen', step: -1 }],
    ['k', {}, { kind: 'letter', letter: 'k' }],
    ['q', { ctrl: true }, { kind: 'none' }],
    ['paste', {}, { kind: 'none' }],
  ])('reads %p with %p as %p', (input, key, action) => expect(actionFor(input, press(key))).toEqual(action));
});

describe(editLine.name, () => {
  it('types, deletes by character, submits and cancels', () => {
    expect(editLine({ text: 'ab' }, 'c', press())).toEqual({ kind: 'editing', line: { text: 'abc' } });
    expect(editLine({ text: 'a日' }, '', press({ backspace: true }))).toEqual({ kind: 'editing', line: { text: 'a' } });
    expect(editLine({ text: 'x' }, 'u', press({ ctrl: true }))).toEqual({ kind: 'editing', line: { text: '' } });
    expect(editLine({ text: 'done' }, '', press({ return: true }))).toEqual({ kind: 'submit', text: 'done' });
    expect(editLine({ text: 'x' }, '', press({ escape: true }))).toEqual({ kind: 'cancel' });
  });

  it('keeps control characters out of a paste and bounds its length', () => {
    expect(editLine({ text: '' }, 'a\nb\u001b[0m', press())).toEqual({ kind: 'editing', line: { text: 'ab[0m' } });
    const long = editLine({ text: '' }, 'x'.repeat(MAX_LINE_LENGTH * 2), press());
    expect(long.kind === 'editing' && long.line.text.length).toBe(MAX_LINE_LENGTH);
  });

  it('leaves q and Tab to the prompt as text or nothing, never as commands', () => {
    expect(editLine({ text: '' }, 'q', press())).toEqual({ kind: 'editing', line: { text: 'q' } });
    expect(editLine({ text: 'a' }, '', press({ tab: true }))).toEqual({ kind: 'editing', line: { text: 'a' } });
  });
});
