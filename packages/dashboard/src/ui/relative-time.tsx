import { useEffect, useState } from 'react';
import { formatExact, formatRelative } from './format';

let ticking: ((now: number) => void)[] = [];
let timer: number | undefined;

/** One shared 30-second clock for every relative time on the page. */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    ticking.push(setNow);
    if (timer === undefined) {
      timer = window.setInterval(() => {
        const t = Date.now();
        for (const set of ticking) set(t);
      }, 30_000);
    }
    return () => {
      ticking = ticking.filter((set) => set !== setNow);
      if (ticking.length === 0 && timer !== undefined) {
        window.clearInterval(timer);
        timer = undefined;
      }
    };
  }, []);
  return now;
}

/** "5 minutes ago", with the exact time on hover (title) and for machines (dateTime). */
export function RelativeTime({ iso }: { iso: string }) {
  const now = useNow();
  return (
    <time dateTime={iso} title={formatExact(iso)}>
      {formatRelative(iso, now)}
    </time>
  );
}

export function ExactOrNever({ iso, never = 'never' }: { iso: string | null; never?: string }) {
  if (!iso) return <span className="muted">{never}</span>;
  return <RelativeTime iso={iso} />;
}
