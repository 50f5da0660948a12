import { useEffect, useState } from 'react';

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain-http deployments have no Clipboard API: fall back to a selected, off-screen textarea.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

export function CopyButton({
  text,
  label = 'Copy',
  className = '',
}: {
  text: string;
  label?: string;
  className?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2000);
    return () => window.clearTimeout(timer);
  }, [state]);
  const labels = { idle: label, copied: 'Copied', failed: 'Copy failed' };
  return (
    <button
      type="button"
      className={`button button-small ${className}`}
      onClick={() =>
        copyText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        )
      }
    >
      {/* Every label is laid out in the same cell, the unused ones invisible, so the button is
          as wide as its longest label and "Copied" never moves the field beside it. */}
      <span className="copy-labels">
        <span aria-live="polite">{labels[state]}</span>
        {(['idle', 'copied', 'failed'] as const)
          .filter((other) => other !== state)
          .map((other) => (
            <span key={other} className="copy-spare" aria-hidden="true">
              {labels[other]}
            </span>
          ))}
      </span>
    </button>
  );
}

/** A block of code or a key, with its copy button in the corner. */
export function CodeBlock({
  code,
  label,
  copyLabel,
  wrap = false,
}: {
  code: string;
  label: string;
  copyLabel?: string;
  /** Wrap long lines (prose such as Markdown) instead of scrolling sideways (code). */
  wrap?: boolean;
}) {
  return (
    <figure className={wrap ? 'code-block wrap' : 'code-block'} aria-label={label}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling block must be reachable by keyboard */}
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} label={copyLabel ?? 'Copy'} className="code-copy" />
    </figure>
  );
}
