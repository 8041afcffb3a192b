// Images and documents (std/media) as each provider's content parts. The first user turn (the
// context and the task) carries them, before its text, in prompt order; the labels in the text
// (`<image image/png 12.3 KB sha256:…>`) say which is which. A provider whose API takes no such part
// refuses the call before anything is sent, naming itself. docs/inference.md, *Images and documents*.
import type { InferRequest } from '../infer/types.js';
import type { MediaVal } from '../values/index.js';
import { ProviderError } from './types.js';

export type { MediaVal };

/** The request's media, or [] — each with its bytes (a value restored from a journal has none). */
export function mediaOf(request: InferRequest, provider: string): { m: MediaVal; base64: string }[] {
  return (request.media ?? []).map((m) => {
    const bytes = m.bytes();
    if (!bytes) throw new ProviderError(`${provider}: the bytes of ${String(m)} are not held by this run (a journal keeps only its hash): load it again with std/media`);
    return { m, base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
  });
}

/** Refuses media a provider cannot send: `what` says what it takes. */
export function refuseMedia(request: InferRequest, provider: string, accepts: (m: MediaVal) => boolean, what: string): void {
  const bad = (request.media ?? []).find((m) => !accepts(m));
  if (bad) throw new ProviderError(`${provider} cannot take ${String(bad)} in a prompt: ${what}`);
}

const dataUrl = (m: MediaVal, base64: string) => `data:${m.mime};base64,${base64}`;
/** a document's file name where an API asks for one: its hash, so equal bytes give equal requests */
const fileName = (m: MediaVal) => `document-${m.sha256.slice(0, 16)}.pdf`;

/** OpenAI chat completions (and Azure): `image_url` with a data URL; a PDF as a `file` part. */
export function openaiChatContent(request: InferRequest, text: string, provider: string): string | unknown[] {
  const media = mediaOf(request, provider);
  if (media.length === 0) return text;
  return [
    ...media.map(({ m, base64 }) =>
      m.kind === 'image' ? { type: 'image_url', image_url: { url: dataUrl(m, base64) } } : { type: 'file', file: { filename: fileName(m), file_data: dataUrl(m, base64) } },
    ),
    { type: 'text', text },
  ];
}

/** OpenAI Responses: `input_image` with a data URL, `input_file` for a PDF, then `input_text`. */
export function responsesContent(request: InferRequest, text: string, provider: string): string | unknown[] {
  const media = mediaOf(request, provider);
  if (media.length === 0) return text;
  return [
    ...media.map(({ m, base64 }) =>
      m.kind === 'image' ? { type: 'input_image', image_url: dataUrl(m, base64), detail: 'auto' } : { type: 'input_file', filename: fileName(m), file_data: dataUrl(m, base64) },
    ),
    { type: 'input_text', text },
  ];
}

/** Anthropic messages: `image` / `document` blocks with a base64 source, then the text block. */
export function anthropicContent(request: InferRequest, text: string, provider: string): string | unknown[] {
  const media = mediaOf(request, provider);
  if (media.length === 0) return text;
  return [
    ...media.map(({ m, base64 }) => ({ type: m.kind === 'image' ? 'image' : 'document', source: { type: 'base64', media_type: m.mime, data: base64 } })),
    { type: 'text', text },
  ];
}

/** Gemini: `inlineData` parts (the REST API's camel case, as the SDK sends it), then the text part. */
export function geminiParts(request: InferRequest, text: string, provider: string): unknown[] {
  return [...mediaOf(request, provider).map(({ m, base64 }) => ({ inlineData: { mimeType: m.mime, data: base64 } })), { text }];
}

/** Bedrock Converse: `image` / `document` blocks, their bytes base64 in JSON, then the text block. */
export function bedrockContent(request: InferRequest, text: string, provider: string): unknown[] {
  return [
    ...mediaOf(request, provider).map(({ m, base64 }) =>
      m.kind === 'image'
        ? { image: { format: m.mime.slice('image/'.length), source: { bytes: base64 } } }
        : // a document's name: letters, digits, hyphens only (Converse's rule), and it must be unique in the request
          { document: { format: 'pdf', name: `document-${m.sha256.slice(0, 16)}`, source: { bytes: base64 } } },
    ),
    { text },
  ];
}

/** Ollama chat: a message's `images` (base64, no data URL); it takes no documents. */
export function ollamaImages(request: InferRequest, provider: string): string[] | undefined {
  refuseMedia(request, provider, (m) => m.kind === 'image', 'Ollama takes images only (send a PDF to a provider that reads documents: openai, anthropic, gemini, bedrock)');
  const media = mediaOf(request, provider);
  return media.length > 0 ? media.map((x) => x.base64) : undefined;
}
