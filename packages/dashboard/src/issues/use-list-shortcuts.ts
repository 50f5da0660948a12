import { useEffect, useRef } from 'react';

export interface ListShortcuts {
  /** `j` (+1) and `k` (-1) */
  move(step: 1 | -1): void;
  /** Enter */
  open(): void;
  /** `r` (lists whose items can be resolved) */
  resolve?(): void;
  /** `i` */
  ignore?(): void;
  /** `x` */
  toggle?(): void;
  /** `/` */
  search(): void;
}

/** Typing in a field (or a dialog) owns the keyboard: no shortcut fires there. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target.closest('dialog[open]')) return true;
  // A checkbox takes no text: the shortcuts work with the focus on a row's box.
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio'].includes(target.type);
  return ['TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * A list's keyboard (the issues, the reports): j/k move, Enter opens, / searches or filters; on
 * the issues also r resolves, i ignores, x checks.
 * Enter on a link or button does what that control does, so it is only taken when the focus is
 * not on one.
 */
export function useListShortcuts(shortcuts: ListShortcuts): void {
  const ref = useRef(shortcuts);
  ref.current = shortcuts;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey) return;
      if (isTyping(event.target) || document.querySelector('dialog[open]')) return;
      const actions = ref.current;
      const run = (action: () => void) => {
        event.preventDefault();
        action();
      };
      switch (event.key) {
        case 'j':
          return run(() => actions.move(1));
        case 'k':
          return run(() => actions.move(-1));
        case 'r':
          return actions.resolve && run(actions.resolve);
        case 'i':
          return actions.ignore && run(actions.ignore);
        case 'x':
          return actions.toggle && run(actions.toggle);
        case '/':
          return run(actions.search);
        case 'Enter': {
          const target = event.target as HTMLElement | null;
          if (target?.closest('a, button')) return;
          return run(actions.open);
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
