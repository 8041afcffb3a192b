// JSON.parse that also says where each value starts, so a bad recording is reported at its line:
// `positions` maps a JSON Pointer (`/tests/greets/exchanges/0`) to the value's offset. The value
// itself comes from JSON.parse (the one parser that decides validity); this walk only locates.

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export interface LocatedJson {
  value: unknown;
  positions: Map<string, number>;
}

const escapePointer = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

export function parseLocated(text: string): LocatedJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const m = /at position (\d+)/.exec((e as Error).message);
    throw new JsonSyntaxError((e as Error).message.replace(/ in JSON at position \d+.*$/, '').replace(/ \(line \d+ column \d+\)$/, ''), m ? Number(m[1]) : 0);
  }
  const positions = new Map<string, number>();
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const walk = (pointer: string): void => {
    ws();
    positions.set(pointer, i);
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        ws();
        i++; // ':'
        walk(`${pointer}/${escapePointer(key)}`);
        ws();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        walk(`${pointer}/${n}`);
        ws();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') str();
    else while (i < text.length && !/[\s,\]}]/.test(text[i])) i++;
  };
  walk('');
  return { value, positions };
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
