// What an image or a document costs in input tokens, estimated before the call from its size in
// pixels (or its pages), by the formula each provider documents. These are estimates: a provider
// counts the real cost (its usage tokens replace the estimate once the reply comes), models of one
// provider differ, and a PDF's text costs what its text costs. docs/inference.md, *Images and documents*.
import type { MediaVal } from '../values/index.js';

export type TokenFamily = 'openai' | 'anthropic' | 'gemini';

/** Width and height from a PNG, GIF, JPEG or WebP header; undefined when the header does not say. */
export function imageSize(b: Uint8Array): { width: number; height: number } | undefined {
  const u16be = (i: number) => (b[i] << 8) | b[i + 1];
  const u16le = (i: number) => b[i] | (b[i + 1] << 8);
  const u24le = (i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
  const u32be = (i: number) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
  const ok = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : undefined);
  if (b[0] === 0x89 && b[1] === 0x50 && b.length >= 24) return ok(u32be(16), u32be(20)); // PNG: IHDR
  if (b[0] === 0x47 && b[1] === 0x49 && b.length >= 10) return ok(u16le(6), u16le(8)); // GIF: logical screen
  if (b[0] === 0x52 && b.length >= 30) {
    // WebP: RIFF....WEBP then a VP8 / VP8L / VP8X chunk
    const chunk = String.fromCharCode(b[12], b[13], b[14], b[15]);
    if (chunk === 'VP8X') return ok(u24le(24) + 1, u24le(27) + 1);
    if (chunk === 'VP8 ') return ok(u16le(26) & 0x3fff, u16le(28) & 0x3fff);
    if (chunk === 'VP8L') {
      const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
      return ok((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    return undefined;
  }
  if (b[0] === 0xff && b[1] === 0xd8) {
    // JPEG: walk the segments to a start-of-frame; each step moves forward, so the walk ends
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1];
      if (marker === 0xff) {
        i++;
        continue;
      }
      const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isFrame) return ok(u16be(i + 7), u16be(i + 5));
      const length = u16be(i + 2);
      if (length < 2) return undefined;
      i += 2 + length;
    }
  }
  return undefined;
}

/** Pages of a PDF, counted as its `/Type /Page` objects (a linear scan; at least 1). */
export function pdfPages(b: Uint8Array): number {
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
  let pages = 0;
  for (let i = text.indexOf('/Type'); i >= 0; i = text.indexOf('/Type', i + 5)) {
    let j = i + 5;
    while (j < text.length && (text[j] === ' ' || text[j] === '\n' || text[j] === '\r')) j++;
    if (text.startsWith('/Page', j) && !text.startsWith('/Pages', j)) pages++;
  }
  return Math.max(1, pages);
}

/** Tokens per PDF page: Anthropic documents 1,500 to 3,000 a page (text and the page's image); Gemini 258. */
const PDF_PAGE_TOKENS: Record<TokenFamily, number> = { openai: 1500, anthropic: 1500, gemini: 258 };
/** When an image's size cannot be read: the cost of a 1024×1024 image by each formula. */
const UNKNOWN_SIZE = { width: 1024, height: 1024 };

/**
 * The estimated input tokens of one media value for a provider family:
 * - openai (OpenAI, Azure OpenAI, Ollama): fit in 2048×2048, shortest side to 768, then
 *   85 + 170 per 512-pixel tile (OpenAI's `detail: high`);
 * - anthropic (Anthropic, Bedrock): long side at most 1568, then width × height / 750;
 * - gemini: 258 for an image within 384×384, else 258 per 768×768 tile.
 */
export function mediaTokens(m: MediaVal, family: TokenFamily): number {
  const bytes = m.bytes();
  if (m.kind === 'document') return PDF_PAGE_TOKENS[family] * (bytes ? pdfPages(bytes) : 1);
  let { width, height } = (bytes && imageSize(bytes)) || UNKNOWN_SIZE;
  if (family === 'openai') {
    const fit = Math.min(1, 2048 / Math.max(width, height));
    width *= fit;
    height *= fit;
    const short = Math.min(1, 768 / Math.min(width, height));
    width *= short;
    height *= short;
    return 85 + 170 * Math.ceil(width / 512) * Math.ceil(height / 512);
  }
  if (family === 'anthropic') {
    const fit = Math.min(1, 1568 / Math.max(width, height));
    return Math.ceil((width * fit * height * fit) / 750);
  }
  if (width <= 384 && height <= 384) return 258;
  return 258 * Math.ceil(width / 768) * Math.ceil(height / 768);
}

/** For a budget before the call, where the provider is not known: the largest of the estimates. */
export function mediaTokensAtMost(media: readonly MediaVal[] | undefined): number {
  let n = 0;
  for (const m of media ?? []) n += Math.max(mediaTokens(m, 'openai'), mediaTokens(m, 'anthropic'), mediaTokens(m, 'gemini'));
  return n;
}
