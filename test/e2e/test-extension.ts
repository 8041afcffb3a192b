// Packs a small test extension folder (package.json + extension.js) into a .vsix that code-server
// installs beside Turn's: the manifest, the content types and extension/..., zipped with Python's
// zipfile (python3 is among what scripts/provision-e2e.sh installs). Used by lm.e2e.ts and agents.e2e.ts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The test extension in folder `src` as a .vsix written into `dir`; returns its path. */
export function packTestExtension(src: string, dir: string): string {
  const pkg = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8')) as { name: string; publisher: string; version: string; engines: { vscode: string } };
  const manifest = `<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011">
  <Metadata>
    <Identity Language="en-US" Id="${pkg.name}" Version="${pkg.version}" Publisher="${pkg.publisher}" />
    <DisplayName>${pkg.name}</DisplayName>
    <Description xml:space="preserve">test extension</Description>
    <Properties><Property Id="Microsoft.VisualStudio.Code.Engine" Value="${pkg.engines.vscode}" /></Properties>
  </Metadata>
  <Installation><InstallationTarget Id="Microsoft.VisualStudio.Code"/></Installation>
  <Dependencies/>
  <Assets><Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true" /></Assets>
</PackageManifest>
`;
  const types = '<?xml version="1.0" encoding="utf-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension=".json" ContentType="application/json"/><Default Extension=".js" ContentType="application/javascript"/><Default Extension=".vsixmanifest" ContentType="text/xml"/></Types>';
  const stage = join(dir, pkg.name);
  mkdirSync(stage, { recursive: true });
  writeFileSync(join(stage, 'extension.vsixmanifest'), manifest);
  writeFileSync(join(stage, '[Content_Types].xml'), types);
  const out = join(dir, `${pkg.publisher}.${pkg.name}-${pkg.version}.vsix`);
  const script = 'import os, sys, zipfile\nout, d, src = sys.argv[1:4]\nwith zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:\n  z.write(d + "/extension.vsixmanifest", "extension.vsixmanifest")\n  z.write(d + "/[Content_Types].xml", "[Content_Types].xml")\n  for f in sorted(os.listdir(src)): z.write(src + "/" + f, "extension/" + f)\n';
  const r = spawnSync('python3', ['-c', script, out, stage, src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`packing the test extension ${src} failed: ${r.stderr}`);
  return out;
}
