import { useRef } from 'react';
import { formatCount } from './format';

/**
 * Previous / "Page n of m" / next, for any paged list; nothing when there is one page.
 * `previous` and `next` name the direction in the list's own order (newer and older reports).
 */
export function Pager({
  page,
  pageCount,
  onPage,
  label = 'Pages',
  previous = 'Previous',
  next = 'Next',
}: {
  page: number;
  pageCount: number;
  onPage(page: number): void;
  label?: string;
  previous?: string;
  next?: string;
}) {
  const ref = useRef<HTMLElement>(null);
  if (pageCount <= 1) return null;
  // The reader clicked at the bottom of a page: the next one is read from its top, so the list
  // (the section holding the pager, or the page) is brought back into view when it starts above.
  const go = (next: number) => {
    onPage(next);
    const list = ref.current?.parentElement?.closest('section, .page-top') ?? null;
    if (!list) window.scrollTo(0, 0);
    else if (list.getBoundingClientRect().top < 80) list.scrollIntoView({ block: 'start' });
  };
  return (
    <nav ref={ref} className="pager" aria-label={label}>
      <button type="button" className="button" disabled={page <= 1} onClick={() => go(page - 1)}>
        ← {previous}
      </button>
      <span className="muted">
        Page {page} of {formatCount(pageCount)}
      </span>
      <button
        type="button"
        className="button"
        disabled={page >= pageCount}
        onClick={() => go(page + 1)}
      >
        {next} →
      </button>
    </nav>
  );
}
