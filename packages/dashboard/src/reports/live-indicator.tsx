import type { LiveStatus } from './use-live-reports';

export function LiveIndicator({ status }: { status: LiveStatus }) {
  const text =
    status === 'live' ? 'Live' : status === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  const title =
    status === 'live'
      ? 'New reports appear as they arrive'
      : 'The live connection dropped; retrying by itself';
  return (
    <span className={`live live-${status}`} role="status" title={title}>
      <span className="live-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
