// Reads a .vsix (a zip) from its central directory, without a zip library: the list of its files,
// and the content of one of them.
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

/** @returns {{name: string, size: number, compressed: number, method: number, offset: number}[]} */
function centralDirectory(buf, file) {
  // End of central directory record: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const out = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry`);
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const offset = buf.readUInt32LE(at + 42);
    out.push({ name: buf.toString('utf8', at + 46, at + 46 + nameLen), size, compressed, method, offset });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** @returns {{name: string, size: number, compressed: number}[]} */
export function listVsix(file) {
  return centralDirectory(readFileSync(file), file).map(({ name, size, compressed }) => ({ name, size, compressed }));
}

/** The content of the file `name` in the .vsix (`extension/package.json`), or undefined when it has none. */
export function readVsixEntry(file, name) {
  const buf = readFileSync(file);
  const entry = centralDirectory(buf, file).find((e) => e.name === name);
  if (!entry) return undefined;
  const at = entry.offset;
  if (buf.readUInt32LE(at) !== 0x04034b50) throw new Error(`${file}: bad local header for ${name}`);
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  const data = buf.subarray(start, start + entry.compressed);
  if (entry.method === 0) return Buffer.from(data);
  if (entry.method === 8) return inflateRawSync(data);
  throw new Error(`${file}: ${name} uses zip method ${entry.method}`);
}
