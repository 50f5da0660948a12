import { ExactOrNever } from './relative-time';

interface Revoked {
  id: string;
  name: string;
  prefix: string;
  revoked_at: string | null;
}

/** The revoked credentials of a list (API keys, forwarding secrets), folded away under a count. */
export function RevokedList({ items }: { items: readonly Revoked[] }) {
  if (items.length === 0) return null;
  return (
    <details className="revoked">
      <summary>{items.length} revoked</summary>
      <ul>
        {items.map((item) => (
          <li key={item.id}>
            {item.name} <code>{item.prefix}…</code>{' '}
            <span className="muted">
              revoked <ExactOrNever iso={item.revoked_at} />
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}
