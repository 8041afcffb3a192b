// What the status bar says about the language server. No `vscode` import: unit-tested in Node.

export type ServerStatus = 'starting' | 'ready' | 'stopped';

export interface StatusPresentation {
  text: string;
  tooltip: string;
}

export function presentStatus(status: ServerStatus, detail?: string): StatusPresentation {
  const suffix = detail ? `\n${detail}` : '';
  switch (status) {
    case 'starting':
      return { text: '$(loading~spin) Turn', tooltip: `Turn language server: starting${suffix}` };
    case 'ready':
      return { text: '$(check) Turn', tooltip: `Turn language server: ready${suffix}` };
    case 'stopped':
      return { text: '$(circle-slash) Turn', tooltip: `Turn language server: stopped — click to restart${suffix}` };
  }
}
