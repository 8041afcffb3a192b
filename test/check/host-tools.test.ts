// The checker's list of host tools (runtime/check/host-tools.ts) is the VM's: the checker may not
// import the VM, so this test keeps the two from drifting apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOST_TOOL_RESULTS } from '../../runtime/check/host-tools.js';
import { TOOLS } from '../../runtime/vm/tools.js';
import { EFFECT_TOOL_NAMES, PURE_STD_TOOLS } from '../../runtime/vm/host-tools.js';
import { PROCESS_TOOLS } from '../../runtime/vm/actors.js';
import { AGENT_TOOLS } from '../../runtime/vm/agents.js';

test('the checker knows exactly the tool names the VM answers', () => {
  const vm = new Set(['select', ...Object.keys(TOOLS), ...EFFECT_TOOL_NAMES, ...Object.keys(PURE_STD_TOOLS), ...Object.keys(PROCESS_TOOLS), ...Object.keys(AGENT_TOOLS)]);
  assert.deepEqual([...Object.keys(HOST_TOOL_RESULTS)].sort(), [...vm].sort());
});
