import type { ReactNode } from 'react';
import type { Resource } from '../api/use-resource';
import { ErrorNotice, Loading } from './notice';

export interface Column<Item> {
  header: string;
  cell(item: Item): ReactNode;
}

/**
 * The list of a credential page (API keys, forwarding secrets, invitations): its loading, error
 * and empty states, then a table whose first column heads each row and whose last holds the
 * row's Revoke button. The `keys-table` class keeps that button in reach on a phone.
 */
export function CredentialTable<Item extends { id: string }>({
  resource,
  items,
  empty,
  columns,
  revokeLabel,
  onRevoke,
  rowData,
}: {
  resource: Pick<Resource<unknown>, 'data' | 'error' | 'reload'>;
  /** The rows to show, once `resource` has loaded. */
  items: readonly Item[];
  /** What an empty list says. */
  empty: ReactNode;
  columns: readonly Column<Item>[];
  /** The accessible name of a row's Revoke button, or null where the row cannot be revoked. */
  revokeLabel(item: Item): string | null;
  onRevoke(item: Item): void;
  /** `data-*` attributes of a row, for tests and styles that find one entry. */
  rowData?: (item: Item) => Record<`data-${string}`, string>;
}) {
  if (resource.error) return <ErrorNotice error={resource.error} onRetry={resource.reload} />;
  if (!resource.data) return <Loading />;
  if (items.length === 0) return <p className="muted empty-inline">{empty}</p>;
  const [head, ...rest] = columns;
  return (
    <div className="table-scroll">
      <table className="table keys-table">
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const label = revokeLabel(item);
            return (
              <tr key={item.id} {...rowData?.(item)}>
                {head && <th scope="row">{head.cell(item)}</th>}
                {rest.map((column) => (
                  <td key={column.header}>{column.cell(item)}</td>
                ))}
                <td className="actions">
                  {label !== null && (
                    <button
                      type="button"
                      className="button button-small button-danger-outline"
                      onClick={() => onRevoke(item)}
                      aria-label={label}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
