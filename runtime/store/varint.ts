// The variable-length integers both binary formats of the store read (runtime/store/serialize.ts,
// snapshots; runtime/store/journal-chunk.ts, packed journal entries): seven bits a byte, low first,
// at most 8 bytes (53 bits, a JavaScript number's integers), and zigzag for signed ones. Hostile
// bytes cost at most 8 reads: past that the caller says what is wrong, in its own error (no closure
// per read: snapshot decoding calls this in its hottest loop).

/** What a varint is read from: its next byte, or a throw at the end of the input. */
export interface ByteSource {
  byte(): number;
}

/** Reads one varint from `src`; -1 when it runs past 8 bytes (the caller says so in its own error). */
export function readVarint(src: ByteSource): number {
  let n = 0;
  let scale = 1;
  for (let i = 0; i < 8; i++) {
    const b = src.byte();
    n += (b & 0x7f) * scale;
    if (b < 0x80) return n;
    scale *= 0x80;
  }
  return -1;
}

/** The signed integer a zigzag-encoded varint holds (0, -1, 1, -2, ...). */
export function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}
