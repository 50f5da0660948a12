import { ExactOrNever } from './relative-time';

interface Revoked {
  id: string;
  name: string;
  prefix: string;
  revoked_at: string | null;
}

/** A list of credentials parted into those still in use and the revoked ones. */
export function partitionRevoked<Item extends { revoked_at: string | null }>(
  items: readonly Item[] | undefined,
): { active: Item[]; revoked: Item[] } {
  const all = items ?? [];
  return {
    active: all.filter((item) => !item.revoked_at),
    revoked: all.filter((item) => item.revoked_at),
  };
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
