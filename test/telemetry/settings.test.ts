// The editor's `turn.telemetry` setting (extension/settings.ts): read field by field (a value of
// the wrong type, or a field it does not know, such as headers, is dropped), given to the panel's
// and the debugger's runs as the run option, and to the Run File task as the OTEL_* variables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRunSettings, runOptionsFromSettings, telemetryEnv } from '../../extension/settings.js';
import { telemetryConfig } from '../../runtime/telemetry/config.js';

const settingsGet = (values: Record<string, unknown>) => <T>(key: string, dflt: T): T => (key in values ? (values[key] as T) : dflt);

test('turn.telemetry reaches the run options and the Run File task; unknown or mistyped fields are dropped', () => {
  const s = readRunSettings(settingsGet({ telemetry: { enabled: true, endpoint: ' http://127.0.0.1:6006 ', captureContent: 'yes', serviceName: 7, headers: { authorization: 'Bearer x' } } }));
  assert.deepEqual(s.telemetry, { enabled: true, endpoint: 'http://127.0.0.1:6006' });
  assert.deepEqual(runOptionsFromSettings(s, '/w').telemetry, { enabled: true, endpoint: 'http://127.0.0.1:6006' });
  assert.deepEqual(telemetryEnv(s), { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:6006' });
  // the task's variables say to the CLI what the option says to the panel's run
  assert.equal(telemetryConfig(undefined, telemetryEnv(s))?.url, telemetryConfig(s.telemetry, {})?.url);
  const off = readRunSettings(settingsGet({ telemetry: { enabled: false } }));
  assert.deepEqual(telemetryEnv(off), { OTEL_SDK_DISABLED: 'true' });
  assert.equal(telemetryConfig(off.telemetry, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), undefined, 'off in the editor wins over the environment');
  for (const v of [null, 'on', [1], 3]) assert.equal(readRunSettings(settingsGet({ telemetry: v })).telemetry, undefined);
  assert.equal(runOptionsFromSettings(readRunSettings(settingsGet({})), '/w').telemetry, undefined);
});
