// The host tools a program reaches with `call("NAME", ...)`, as the checker knows them: every name
// the VM answers (runtime/vm/tools.ts, host-tools.ts, actors.ts, agents.ts; the checker may not
// import the VM, so test/check/host-tools.test.ts keeps this list equal to the VM's), and the
// result type of those whose result is always of one type. A name not here fails at run time with
// "unknown tool", so `turn check` reports it first, with the nearest name.
import { suggest } from './spelling.js';
import { ANY, BOOL, NULL, NUM, STR, optionalOf, type StaticType } from './types.js';

const LIST_STR: StaticType = { kind: 'List', element: STR };
const LIST_NUM: StaticType = { kind: 'List', element: NUM };
const PID: StaticType = { kind: 'Pid' };

/** Each known tool's result type (ANY where it depends on the arguments). */
export const HOST_TOOL_RESULTS: Readonly<Record<string, StaticType>> = {
  // runtime/vm/tools.ts
  echo: NULL, len: NUM, list_push: ANY, list_contains: BOOL, list_get: ANY, list_set: ANY, list_pop: ANY, list_last: ANY,
  list_concat: ANY, list_slice: ANY, list_reverse: ANY, list_index_of: NUM, range: LIST_NUM,
  str_split: LIST_STR, str_join: STR, str_contains: BOOL, str_replace: STR, str_upper: STR, str_lower: STR, str_trim: STR,
  str_starts_with: BOOL, str_ends_with: BOOL, str_slice: STR, url_encode: STR, to_string: STR, to_number: ANY, type_of: STR,
  keys: LIST_STR, values: ANY, map_get: ANY, map_set: ANY, map_has: BOOL, map_remove: ANY, json_parse: ANY, json_stringify: STR,
  abs: NUM, floor: NUM, ceil: NUM, round: NUM, sqrt: NUM, min: NUM, max: NUM, assert: ANY, assert_eq: ANY,
  // effect tools (runtime/effects/tools.ts, answered by the host)
  math_random: NUM, time_now_ms: NUM, time_now_iso: STR, env_get: optionalOf(STR), fs_read: STR, fs_write: NULL, fs_append: NULL,
  fs_list: LIST_STR, fs_exists: BOOL, http_request: ANY, http_get: STR, http_post: STR,
  media_file: ANY, media_url: ANY, media_base64: ANY,
  mcp_call: ANY, mcp_tools: ANY, mcp_resources: ANY, mcp_read: ANY, mcp_templates: ANY, mcp_subscribe: NULL, mcp_unsubscribe: NULL,
  mcp_updates: LIST_STR, mcp_prompts: ANY, mcp_prompt: ANY,
  // what a run `turn mcp` serves asks its caller (runtime/mcp/caller-tools.ts)
  progress: ANY, mcp_elicit: ANY, mcp_sample: ANY, mcp_roots: ANY,
  kb_put: ANY, kb_publish: ANY, kb_get: ANY, kb_find: ANY, kb_inspect: ANY, kb_dependents: ANY, kb_revise: ANY, kb_confirm: ANY,
  kb_stale: ANY, kb_check_record: ANY, kb_check_lookup: ANY, kb_commit: ANY, kb_run: ANY,
  // pure standard tools
  regex_match: BOOL, regex_find: ANY, regex_find_all: ANY, regex_replace: STR, regex_split: ANY, math_pow: NUM, math_atan2: NUM,
  math_log: NUM, math_log10: NUM, math_log2: NUM, math_exp: NUM, math_sin: NUM, math_cos: NUM, math_tan: NUM, math_asin: NUM,
  math_acos: NUM, math_atan: NUM, math_trunc: NUM, math_sign: NUM, json_pretty: STR, json_schema_issues: ANY, json_drop_nulls: ANY,
  time_format_iso: STR, time_parse_iso: optionalOf(NUM),
  // absorbed modules' names on the wire (runtime/absorb/wire.ts)
  wire_encode: ANY, wire_arguments: ANY, wire_decode: ANY,
  // absorbed OpenAPI operations' requests and replies (runtime/absorb/openapi-wire.ts)
  openapi_request: ANY, openapi_reply: ANY,
  // a process's own tools (runtime/vm/actors.ts) and agents (runtime/vm/agents.ts)
  context_clear: ANY, context_budget: ANY, process_name: NULL, process_after: NULL, self: PID, monitor: ANY, demonitor: ANY, cancel: ANY, wait: ANY, events: ANY, emit: ANY,
  processes: ANY, sleep: ANY, budget: ANY, task_budget: ANY, now: NUM, model_supports: BOOL,
  agent: ANY, agent_spawn: ANY, agent_policy: ANY, agent_info: ANY,
  // the VM's own first-ready choice (runtime/vm/select.ts)
  select: ANY,
};

/** Turn v1's kernel traps, named by its standard modules: what stands for each here. */
const V1_TRAPS: Readonly<Record<string, string>> = {
  __sys_fs_read: 'fs_read', __sys_fs_write: 'fs_write', __sys_json_parse: 'json_parse', __sys_json_stringify: 'json_stringify',
  __sys_sleep: 'sleep', __sys_http_get: 'http_get', __sys_http_post: 'http_post', __sys_env_get: 'env_get',
};

export function isHostTool(name: string): boolean {
  return Object.hasOwn(HOST_TOOL_RESULTS, name);
}

/** The result type of `call(name, ...)`, ANY when unknown or when it depends on the arguments. */
export function hostToolResult(name: string): StaticType {
  return Object.hasOwn(HOST_TOOL_RESULTS, name) ? HOST_TOOL_RESULTS[name] : ANY;
}

/** The message for a tool name the VM would not know, with the nearest known name when there is one. */
export function unknownHostTool(name: string): string {
  if (Object.hasOwn(V1_TRAPS, name)) return `unknown host tool \`${name}\` (a Turn v1 kernel trap): call \`${V1_TRAPS[name]}\` instead`;
  // the edit distance is quadratic: a name longer than any tool's is no misspelling of one
  const hint = name.length <= 40 ? suggest(name, Object.keys(HOST_TOOL_RESULTS)) : '';
  return `unknown host tool \`${name}\`${hint}`;
}
