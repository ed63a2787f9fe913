import type { ListMove } from './list-state';

/** The parts of Ink's key object the TUI reads (structurally, so the pure code needs no Ink). */
export interface KeyPress {
  upArrow: boolean;
  downArrow: boolean;
  leftArrow: boolean;
  rightArrow: boolean;
  pageUp: boolean;
  pageDown: boolean;
  home: boolean;
  end: boolean;
  return: boolean;
  escape: boolean;
  ctrl: boolean;
  meta: boolean;
  tab: boolean;
  shift: boolean;
  backspace: boolean;
  delete: boolean;
}

/** What a key means on a screen with no prompt open. */
export type Action =
  | { kind: 'move'; move: ListMove }
  | { kind: 'open' }
  | { kind: 'back' }
  | { kind: 'quit' }
  | { kind: 'filter' }
  | { kind: 'nextScreen'; step: 1 | -1 }
  | { kind: 'letter'; letter: string }
  | { kind: 'none' };

export function actionFor(input: string, key: KeyPress): Action {
  if (key.upArrow) return { kind: 'move', move: 'up' };
  if (key.downArrow) return { kind: 'move', move: 'down' };
  if (key.pageUp) return { kind: 'move', move: 'pageUp' };
  if (key.pageDown) return { kind: 'move', move: 'pageDown' };
  if (key.home) return { kind: 'move', move: 'home' };
  if (key.end) return { kind: 'move', move: 'end' };
  if (key.return || key.rightArrow) return { kind: 'open' };
  if (key.escape || key.leftArrow) return { kind: 'back' };
  if (key.tab) return { kind: 'nextScreen', step: key.shift ? -1 : 1 };
  if (key.ctrl || key.meta) return { kind: 'none' };
  if (input === 'q') return { kind: 'quit' };
  if (input === '/') return { kind: 'filter' };
  if (input.length === 1 && input >= ' ') return { kind: 'letter', letter: input };
  return { kind: 'none' };
}

/** A one-line prompt being typed into (a filter, a key's name, a confirmation). */
export interface LineEdit {
  text: string;
}

export type LineResult = { kind: 'editing'; line: LineEdit } | { kind: 'submit'; text: string } | { kind: 'cancel' };

/** Longer input is refused as typed, so a paste of a whole file cannot grow a prompt without end. */
export const MAX_LINE_LENGTH = 256;

/** Typing into a prompt: Enter submits, Esc cancels, Backspace removes the last character; a paste arrives as one input. */
export function editLine(line: LineEdit, input: string, key: KeyPress): LineResult {
  if (key.return) return { kind: 'submit', text: line.text };
  if (key.escape) return { kind: 'cancel' };
  if (key.backspace || key.delete) return { kind: 'editing', line: { text: Array.from(line.text).slice(0, -1).join('') } };
  if (key.ctrl && input === 'u') return { kind: 'editing', line: { text: '' } };
  if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.tab) return { kind: 'editing', line };
  // eslint-disable-next-line no-control-regex -- a pasted newline or escape must not reach the prompt
  const typed = input.replace(/[\u0000-\u001f\u007f]/g, '');
  return {
    kind: 'editing',
    line: {
      text: Array.from(line.text + typed)
        .slice(0, MAX_LINE_LENGTH)
        .join(''),
    },
  };
}
