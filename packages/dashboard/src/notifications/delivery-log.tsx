import type { Delivery } from '@debrief/protocol';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { ErrorNotice, Loading } from '../ui/notice';
import { RelativeTime } from '../ui/relative-time';

type Deliveries = { data: Delivery[] };

/** The attempts to deliver to one destination, newest first, each with its `webhook-id`. */
export function DeliveryLog({
  projectId,
  destinationId,
}: {
  projectId: string;
  destinationId: string;
}) {
  const { api } = useSession();
  const deliveries = useResource(`deliveries/${destinationId}`, () =>
    api.get<Deliveries>(`/v1/dashboard/${projectId}/destinations/${destinationId}/deliveries`),
  );
  if (deliveries.error) return <ErrorNotice error={deliveries.error} onRetry={deliveries.reload} />;
  if (!deliveries.data) return <Loading />;
  if (deliveries.data.data.length === 0)
    return <p className="muted empty-inline">Nothing delivered yet. “Send a test” tries it now.</p>;
  return (
    <div className="table-scroll">
      <table className="table delivery-log" aria-label="Delivery log">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">Result</th>
            <th scope="col">webhook-id</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.data.map((d) => (
            <tr key={d.id}>
              <td>
                <RelativeTime iso={d.created_at} />
              </td>
              <td>
                <code>{d.type}</code>
              </td>
              <td>{d.attempt}</td>
              <td>
                {d.status}
                {d.response_status !== null && ` (${d.response_status})`}
                {d.error && <span className="muted small"> {d.error}</span>}
              </td>
              <td>
                <code className="small">{d.message_id}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
