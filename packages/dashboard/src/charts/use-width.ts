import { type RefObject, useEffect, useState } from 'react';

/** The element's content width, kept current with a ResizeObserver. */
export function useWidth(ref: RefObject<HTMLElement | null>, initial = 600): number {
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth || initial);
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.round(entry.contentRect.width));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, initial]);
  return width;
}
