// A rendered prompt's parts, without the DOM (tested in Node).

/** A prompt's task text split from the JSON Schema it ends with (runtime/infer/prompt.ts's taskText). */
export function splitSchema(task: string): { text: string; schema: unknown } {
  const nl = task.lastIndexOf('\n');
  const last = task.slice(nl + 1);
  if (!last.startsWith('{')) return { text: task, schema: undefined };
  try {
    return { text: task.slice(0, Math.max(0, nl)), schema: JSON.parse(last) as unknown };
  } catch {
    return { text: task, schema: undefined };
  }
}
