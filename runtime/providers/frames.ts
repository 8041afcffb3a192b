// Framing of streamed replies: server-sent events (OpenAI-compatible servers, Anthropic) and
// newline-delimited JSON (Ollama's native API). Bytes come in as they arrive, split anywhere (in
// the middle of a line, of a UTF-8 character); each complete frame is handed to `onFrame`.
import { StringDecoder } from 'node:string_decoder';

export interface FrameReader {
  push(chunk: Buffer): void;
  /** the stream ended: a last frame without its final newline is handed over too */
  end(): void;
}

export function readFrames(framing: 'sse' | 'ndjson', onFrame: (data: string, event: string | undefined) => void): FrameReader {
  const utf8 = new StringDecoder('utf8');
  let buffer = '';
  // SSE state: the event being built
  let data: string[] = [];
  let event: string | undefined;
  const line = (raw: string) => {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (framing === 'ndjson') {
      if (text.trim() !== '') onFrame(text, undefined);
      return;
    }
    if (text === '') {
      if (data.length > 0) onFrame(data.join('\n'), event);
      data = [];
      event = undefined;
      return;
    }
    if (text.startsWith(':')) return; // a comment (keep-alive)
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };
  const drain = () => {
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const one = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      line(one);
      nl = buffer.indexOf('\n');
    }
  };
  return {
    push(chunk) {
      buffer += utf8.write(chunk);
      drain();
    },
    end() {
      buffer += utf8.end();
      drain();
      if (buffer !== '') line(buffer);
      buffer = '';
      if (framing === 'sse') line('');
    },
  };
}
