// Azure OpenAI (`azure:DEPLOYMENT`): OpenAI's chat completions at the resource's own URL,
// `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version={version}`, with the key in
// an `api-key` header (`auth=key`, AZURE_OPENAI_API_KEY) or a Microsoft Entra ID access token as a
// bearer (`auth=entra`, AZURE_OPENAI_AD_TOKEN) — either way an environment variable's name, read by
// the host when it sends. The body is the `openai:` provider's (strict json_schema, streaming with
// usage, seed), with `max_completion_tokens` as the current API versions take it. The endpoint and
// version come from the spec, else AZURE_OPENAI_ENDPOINT and OPENAI_API_VERSION (the names the
// official SDK reads).
import { openaiProvider, type OpenAIOptions } from './openai.js';
import { ModelConfigError, type AuthSpec, type HttpProvider } from './types.js';

/** The GA version with strict structured outputs, `stream_options` and `max_completion_tokens`. */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

export interface AzureOptions extends Omit<OpenAIOptions, 'baseUrl' | 'keyRequired' | 'endpoint' | 'apiKeyEnv'> {
  /** the deployment's name (the model of the spec) */
  model: string;
  /** `https://RESOURCE.openai.azure.com` */
  endpoint: string;
  apiVersion: string;
  auth: 'key' | 'entra';
  /** the variable holding the key or the token (default AZURE_OPENAI_API_KEY / AZURE_OPENAI_AD_TOKEN) */
  credentialEnv?: string;
}

export function azureProvider(o: AzureOptions): HttpProvider {
  if (!/^[A-Za-z0-9._-]+$/.test(o.model)) throw new ModelConfigError(`\`azure:${o.model}\`: a deployment name has only letters, digits, '.', '_' and '-'`);
  const url = `${o.endpoint.replace(/\/+$/, '')}/openai/deployments/${o.model}/chat/completions?api-version=${encodeURIComponent(o.apiVersion)}`;
  const auth: AuthSpec =
    o.auth === 'entra'
      ? { env: o.credentialEnv ?? 'AZURE_OPENAI_AD_TOKEN', header: 'authorization', prefix: 'Bearer ', required: true }
      : { env: o.credentialEnv ?? 'AZURE_OPENAI_API_KEY', header: 'api-key', prefix: '', required: true };
  return openaiProvider({
    ...o,
    baseUrl: o.endpoint,
    apiKeyEnv: auth.env,
    keyRequired: true,
    endpoint: { url, auth, name: `azure:${o.model}`, service: 'Azure OpenAI', maxTokensField: 'max_completion_tokens' },
  });
}
