// The compiled form of a program: every unit's code as function prototypes with flat code arrays.
import type { ToolSignature } from './tool-signature.js';
import type { SourceFile } from '../syntax/source.js';
import type { JsonSchema } from '../infer/schema.js';
import type { LaunchMapSite } from '../check/launch-maps.js';

export interface ParamInfo {
  name: string;
  /** a `Check` code (0 = no check) */
  check: number;
  /** the type as written, for messages */
  type: string;
}

export interface UpvalueDesc {
  /** true: capture the enclosing function's local slot `index` (which holds a Cell); false: its upvalue `index` */
  local: boolean;
  index: number;
}

export interface FunctionProto {
  id: number;
  name: string;
  /** index into `Bundle.units` */
  unit: number;
  /** declared parameter count (not counting the receiver of a method) */
  arity: number;
  /** an `impl` method: slot 0 holds the receiver (`self`), parameters follow */
  method: boolean;
  params: ParamInfo[];
  /** locals, parameters included */
  nslots: number;
  code: Int32Array;
  /** for each code word, the UTF-16 offset of the source node it was compiled from */
  spans: Int32Array;
  consts: unknown[];
  upvalues: UpvalueDesc[];
  /**
   * A function of a standard module: called with a single map where it takes more parameters (Turn
   * v1's `net.get({"url": u, "identity": id})`), it gets the map first and null for the rest.
   */
  std?: boolean;
  /**
   * A closure whose last parameter is `arguments_given` (what an absorbed API's generated module
   * declares: runtime/absorb/module.ts): it may be called without its trailing parameters declared
   * `T?`, down to this many; those left out are null and `arguments_given` receives, per parameter
   * before it, whether the call gave it (a List of Bool), so that "left out" and `null` differ.
   */
  required?: number;
}

export interface StructDesc {
  type: string;
  /** field names of the literal, in the order their values are on the stack */
  names: string[];
  spread: boolean;
  /** declared field order (null when the struct is not declared in the bundle) */
  order: string[] | null;
  /** the `T?` fields the literal left out, which the compiler gives null (not written null: StructVal.writtenNull) */
  filled?: string[];
}

export interface ImplDesc {
  type: string;
  names: string[];
}

export interface InferDesc {
  typeName: string;
  schema: JsonSchema;
  /** names of the `with { ... }` options, whose values are on the stack under the prompt, in this order */
  options?: string[];
}

export interface BundleUnit {
  path: string;
  file: SourceFile;
  /** function id of the unit's top-level code */
  main: number;
}

export interface Bundle {
  /** sha256 (hex) over a canonical serialization of the bytecode */
  version: string;
  units: BundleUnit[];
  /** index into `units` of the entry unit */
  entry: number;
  functions: FunctionProto[];
  /** declared structs: name → field names in order */
  structs: Record<string, string[]>;
  /**
   * the MCP launch maps written literally in the program's units (runtime/check/launch-maps.ts):
   * the only ones a run launches. Derived from the sources, so not part of `version`.
   */
  launchMaps?: readonly LaunchMapSite[];
  /** a closure prototype's signature as a tool a model may call (`infer T with { tools: [...] }`); derived from the sources, so not part of `version` */
  toolSignature?: (proto: number) => ToolSignature | undefined;
}
