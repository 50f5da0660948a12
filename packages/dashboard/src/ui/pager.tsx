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
  if (pageCount <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button
        type="button"
        className="button"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        ← {previous}
      </button>
      <span className="muted">
        Page {page} of {formatCount(pageCount)}
      </span>
      <button
        type="button"
        className="button"
        disabled={page >= pageCount}
        onClick={() => onPage(page + 1)}
      >
        {next} →
      </button>
    </nav>
  );
}
