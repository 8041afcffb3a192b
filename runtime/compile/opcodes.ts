// Opcodes of the Turn VM. Code is a flat Int32Array per function: an opcode followed by its
// inline integer operands (slot numbers, constant indices, absolute jump targets, counts).

export const Op = {
  CONST: 0, // k
  NULL: 1,
  TRUE: 2,
  FALSE: 3,
  POP: 4,
  DUP: 5,
  LOAD_LOCAL: 6, // slot
  STORE_LOCAL: 7, // slot (pops)
  LOAD_CELL: 8, // slot (the slot holds a Cell)
  STORE_CELL: 9, // slot (pops)
  LOAD_UPVAL: 10, // index into the closure's cells
  NEW_CELL: 11, // slot: slot := Cell(null)
  BOX: 12, // slot: slot := Cell(slot)
  ADD: 13,
  SUB: 14,
  MUL: 15,
  DIV: 16,
  EQ: 17,
  NE: 18,
  LT: 19,
  GT: 20,
  LE: 21,
  GE: 22,
  SIM: 23, // a ~> b
  NEG: 24,
  NOT: 25,
  AND_JUMP: 26, // target: if top is falsy, replace it by false and jump; else leave it
  AND_END: 27, // pop b, pop a: push truthy(b) with min confidence
  OR_JUMP: 28, // target: if top is truthy, replace it by true and jump; else leave it
  OR_END: 29,
  JUMP: 30, // target
  JUMP_IF_FALSE: 31, // target (pops)
  LOOP: 32, // target (a backward jump: counts a step)
  JCMP_LC: 33, // cmp slot k target: jump unless (slot CMP const k)
  JCMP_LL: 34, // cmp slotA slotB target
  ADD_LL_ST: 35, // dst a b: dst := a + b
  ADD_LC_ST: 36, // dst a k: dst := a + const k
  MAKE_LIST: 37, // n
  MAKE_MAP: 38, // k(keys) n
  MAKE_STRUCT: 39, // k(StructDesc) n(values, plus the spread base last when desc.spread)
  MAKE_VEC: 40, // n
  INDEX: 41,
  GET_FIELD: 42, // k(name)
  CLOSURE: 43, // proto id
  CALL: 44, // argc — stack: callee, args
  CALL_BUILTIN: 45, // argc — stack: target (closure or tool name), args
  METHOD_CALL: 46, // k(name) argc — stack: receiver, args
  RETURN: 47,
  TRY: 48, // handler target
  END_TRY: 49,
  THROW: 50,
  ITER_CHECK: 51, // slot: the slot must hold a list (for map/filter/spawn_each)
  FOR_ITER: 52, // listSlot idxSlot elemSlot target: elem := list[idx++] or jump
  APPEND_LOCAL: 53, // slot: pop a value and push it onto the list held in slot
  IMPL: 54, // k(ImplDesc) n — the method closures are on the stack
  USE: 55, // unit index
  INFER: 56, // k(InferDesc) — the prompt is on the stack
  CONFIDENCE: 57,
  SPAWN: 58, // link(0/1)
  SPAWN_EACH: 59,
  GATHER: 60,
  RECEIVE: 61,
  SEND: 62,
  REMEMBER: 63,
  RECALL: 64,
  CTX_APPEND: 65,
  CTX_SYSTEM: 66,
  GRANT: 67, // k(kind)
  ERROR: 68, // k(message): raise a runtime error
  SUSPEND: 69,
  UNDEFINED: 70, // k(name): raise "undefined name"
  LOOP_CMP_LC: 71, // cmp slot k target: if (slot CMP const k) jump back to target (counts a step)
  LOOP_CMP_LL: 72, // cmp slotA slotB target: likewise
  LOOP_IF_TRUE: 73, // target: pop; if truthy jump back to target (counts a step)
  // issue 3: scoped invocation
  INVOKE_ENTER: 74, // the process's context becomes a snapshot of itself; the caller's is kept
  INVOKE_EXIT: 75, // the kept context comes back (a throw out of the invocation does this too)
  // issue 4: lifecycles (numbered from 90, clear of the inference issue's additions)
  RECEIVE_T: 90, // pop ms: the next message, or null once ms have passed
  SCOPE_ENTER: 91, // policy: open a scope (0 fail_fast, 1 wait_all, 2 first_success, 3 best_effort)
  SCOPE_EXIT: 92, // wait for the scope's tasks per its policy; push their results
  TASK: 93, // pop closure: start it as a task of the innermost scope; push its pid
  DETACH: 94, // pop closure: start it as a process owned by the runtime; push its pid
  // issue 17: the counted loop's back edge, fused (docs/performance.md)
  ADD_LC_LOOP: 95, // dst a k: ADD_LC_ST, then the LOOP_CMP_LC that always follows it, in one dispatch
  // issue 43: `ask T { prompt }`, a typed question to a person (runtime/ask/)
  ASK: 96, // k(InferDesc) — the prompt is on the stack
} as const;

export type OpCode = (typeof Op)[keyof typeof Op];

/** Operand count of each opcode. */
export const OPERANDS: Record<number, number> = {};
for (const v of Object.values(Op)) OPERANDS[v] = 0;
for (const op of [
  Op.CONST, Op.LOAD_LOCAL, Op.STORE_LOCAL, Op.LOAD_CELL, Op.STORE_CELL, Op.LOAD_UPVAL, Op.NEW_CELL, Op.BOX,
  Op.AND_JUMP, Op.OR_JUMP, Op.JUMP, Op.JUMP_IF_FALSE, Op.LOOP, Op.MAKE_LIST, Op.MAKE_VEC, Op.GET_FIELD,
  Op.CLOSURE, Op.CALL, Op.CALL_BUILTIN, Op.TRY, Op.ITER_CHECK, Op.APPEND_LOCAL, Op.USE, Op.INFER, Op.ASK, Op.SPAWN,
  Op.GRANT, Op.ERROR, Op.UNDEFINED, Op.LOOP_IF_TRUE, Op.SCOPE_ENTER,
]) OPERANDS[op] = 1;
for (const op of [Op.MAKE_MAP, Op.MAKE_STRUCT, Op.METHOD_CALL, Op.IMPL]) OPERANDS[op] = 2;
for (const op of [Op.ADD_LL_ST, Op.ADD_LC_ST, Op.ADD_LC_LOOP]) OPERANDS[op] = 3;
for (const op of [Op.JCMP_LC, Op.JCMP_LL, Op.FOR_ITER, Op.LOOP_CMP_LC, Op.LOOP_CMP_LL]) OPERANDS[op] = 4;

export const OP_NAMES: Record<number, string> = Object.fromEntries(Object.entries(Op).map(([k, v]) => [v, k]));

/** Comparison kinds used by JCMP_*. */
export const Cmp = { LT: 0, LE: 1, GT: 2, GE: 3 } as const;

/** Parameter type checks done at call time (gradual: NONE = no check). */
export const Check = { NONE: 0, NUM: 1, STR: 2, BOOL: 3, LIST: 4, MAP: 5 } as const;
