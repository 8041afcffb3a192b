// The run panel's HTML with its content security policy: nothing loads but the bundled script
// (with a fresh nonce) and stylesheet, and images only as data: URLs (a prompt's thumbnails,
// webview/media.ts); no connections, frames, forms or inline code.
import { randomBytes } from 'node:crypto';

export function nonce(): string {
  return randomBytes(18).toString('base64url');
}

/** The panel's HTML: only the bundled script (with the nonce) and stylesheet from dist/webview/ may load. */
export function panelHtml(cspSource: string, scriptUri: string, styleUri: string, n: string): string {
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `script-src 'nonce-${n}'`,
    "img-src data:",
    `font-src ${cspSource}`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${styleUri}">
<title>Turn Run</title>
</head>
<body>
<div id="turn-panel"></div>
<script nonce="${n}" src="${scriptUri}"></script>
</body>
</html>`;
}
