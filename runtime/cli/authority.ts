// The command line's authority flags: where secrets come from, what effects a run may perform,
// and who approves the ones that need it. See docs/authority.md.
import { capabilitiesFromFlags, cliApproval, newUsage, parseApproveFlag, type CapabilityFlags } from '../effects/capabilities.js';
import type { EffectToolContext } from '../effects/tools.js';
import { lazyKnowledge } from '../knowledge/open.js';
import { ChainVault, EnvVault, FileVault, RedactingVault, Redactor, type Vault } from '../effects/vault.js';

export const AUTHORITY_OPTIONS = {
  secrets: { type: 'string' },
  'allow-net': { type: 'string', multiple: true },
  'allow-read': { type: 'string', multiple: true },
  'allow-write': { type: 'string', multiple: true },
  'allow-env': { type: 'string', multiple: true },
  'max-model-calls': { type: 'string' },
  'max-model-tokens': { type: 'string' },
  approve: { type: 'string' },
  'approve-effects': { type: 'string' },
} as const;

export const AUTHORITY_USAGE = `authority options (nothing is granted unless given):
  --secrets FILE          secrets file (JSON or NAME=value lines, chmod 600); TURN_SECRET_<NAME> variables come first
  --allow-net HOSTS       hosts the program may reach, comma-separated (host, *.suffix, host:port, *)
  --allow-read DIRS       folders it may read        --allow-write DIRS   folders it may write
  --allow-env NAMES       environment variables it may read (never TURN_SECRET_*)
  --max-model-calls N     model call budget          --max-model-tokens N  model token budget
  --approve-effects KINDS effects that need approval: network, files, model, env (comma-separated)
  --approve all|none|ask  who approves them (default: ask on the terminal; deny without one)`;

export interface RunAuthority {
  context: EffectToolContext;
  redactor: Redactor;
}

const list = (v: unknown): string[] | undefined =>
  v === undefined ? undefined : (v as string[]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);

const count = (v: unknown, flag: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag} needs a whole number >= 0, got \`${String(v)}\``);
  return n;
};

/** Builds the vault, capabilities and approval hook of a run from its flags (throws on bad flags or files). */
export async function authorityFromFlags(
  values: Record<string, unknown>,
  cwd: string,
  /** knowledgeRunId: the id std/knowledge writes as (a durable run passes its run id, so `turn resume` sees its drafts) */
  options: { knowledgeRunId?: () => string } = {},
): Promise<RunAuthority> {
  const flags: CapabilityFlags = {
    allowNet: list(values['allow-net']),
    allowRead: list(values['allow-read']),
    allowWrite: list(values['allow-write']),
    allowEnv: list(values['allow-env']),
    maxModelCalls: count(values['max-model-calls'], 'max-model-calls'),
    maxModelTokens: count(values['max-model-tokens'], 'max-model-tokens'),
    approve: list(values['approve-effects'] === undefined ? undefined : [values['approve-effects']]),
  };
  const vaults: Vault[] = [new EnvVault()];
  if (values.secrets !== undefined) vaults.push(await FileVault.open(String(values.secrets)));
  const redactor = new Redactor();
  return {
    redactor,
    context: {
      vault: new RedactingVault(new ChainVault(vaults), redactor),
      capabilities: capabilitiesFromFlags(flags, cwd),
      usage: newUsage(),
      approve: cliApproval({ mode: parseApproveFlag(values.approve as string | undefined) }),
      redactor,
      cwd,
      // std/knowledge: `.turn/knowledge.db` (or $TURN_STORE_DIR), opened only when a kb tool is first used
      knowledge: lazyKnowledge({ cwd, runId: options.knowledgeRunId }).session,
    },
  };
}
