/** The "Tool" filter of a list: every tool, or one (null: all). */
export function ToolSelect({
  id,
  value,
  tools,
  onChange,
}: {
  id: string;
  value: string | null | undefined;
  tools: readonly string[];
  onChange: (tool: string | null) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Tool</label>
      <select
        id={id}
        value={value ?? ''}
        onChange={(event) => onChange(event.target.value || null)}
      >
        <option value="">All tools</option>
        {tools.map((tool) => (
          <option key={tool} value={tool}>
            {tool}
          </option>
        ))}
      </select>
    </div>
  );
}
