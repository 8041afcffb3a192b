// A host identity handle as `grant identity::kind("name")` makes one, for tests that call the
// host's effect functions directly: the VM mints one from each IdentityVal it passes to the host,
// and a map of the same shape is not one (test/security/forged-handles.test.ts).
import { mintHandle, type IdentityHandle } from '../../runtime/effects/identity.js';
import { IdentityVal } from '../../runtime/values/index.js';

export function granted(kind: string, name: string): IdentityHandle {
  return mintHandle(new IdentityVal(kind, name));
}
