// A readable listing of a function's bytecode (for tests and debugging).
import type { FunctionProto } from './bundle.js';
import { OP_NAMES, OPERANDS } from './opcodes.js';

export function disassemble(f: FunctionProto): string {
  const lines: string[] = [`fn ${f.name} (arity ${f.arity}, slots ${f.nslots})`];
  for (let ip = 0; ip < f.code.length; ) {
    const op = f.code[ip];
    const n = OPERANDS[op] ?? 0;
    const args = Array.from(f.code.slice(ip + 1, ip + 1 + n));
    lines.push(`${String(ip).padStart(4)} ${OP_NAMES[op] ?? '?' + op} ${args.join(' ')}`.trimEnd());
    ip += 1 + n;
  }
  return lines.join('\n');
}
