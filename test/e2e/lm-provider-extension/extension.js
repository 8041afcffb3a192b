// A LanguageModelChatProvider backed by the model tier's real local model (Gemma 3 270M, a .gguf
// run by node-llama-cpp in this extension host), for test/e2e/lm.e2e.ts. The paths come from the
// environment code-server was started with: TURN_E2E_GGUF (the model file), TURN_E2E_LLAMA
// (node-llama-cpp's entry), TURN_E2E_LM_LOG (a file each request is appended to, as JSON lines, so
// the test sees that the request came through vscode.lm). Turn's requests end with the reply's JSON
// Schema (their last line): the reply is decoded under that schema's grammar, as Turn's own
// `llama:` provider does, so a 270M model answers in the shape asked.
const vscode = require('vscode');
const { appendFileSync } = require('node:fs');
const { pathToFileURL } = require('node:url');

let loaded;
function load() {
  loaded ??= (async () => {
    const mod = await import(pathToFileURL(process.env.TURN_E2E_LLAMA).href);
    const llama = await mod.getLlama({ gpu: false, logLevel: 'error' });
    const model = await llama.loadModel({ modelPath: process.env.TURN_E2E_GGUF });
    // two threads, as the model tier runs it: on a busy machine more threads than cores stall each other
    const context = await model.createContext({ contextSize: 2048, threads: 2 });
    return { mod, llama, context };
  })();
  return loaded;
}

function textOf(message) {
  return message.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('turn-e2e', {
      provideLanguageModelChatInformation: async () => [
        { id: 'gemma-3-270m', name: 'Gemma 3 270M (e2e)', family: 'gemma3', version: '270m-q4', maxInputTokens: 2048, maxOutputTokens: 512, capabilities: {} },
      ],
      async provideLanguageModelChatResponse(model, messages, options, progress, token) {
        const texts = messages.map(textOf);
        const note = (o) => process.env.TURN_E2E_LM_LOG && appendFileSync(process.env.TURN_E2E_LM_LOG, JSON.stringify(o) + '\n');
        note({ model: model.id, messages: texts });
        const { mod, llama, context: ctx } = await load();
        const last = texts[texts.length - 1];
        const schemaLine = last.split('\n').reverse().find((l) => l.startsWith('{'));
        const grammar = schemaLine ? await llama.createGrammarForJsonSchema(JSON.parse(schemaLine)) : undefined;
        const sequence = ctx.getSequence();
        const session = new mod.LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: true });
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        try {
          await session.prompt(texts.join('\n\n'), {
            ...(grammar ? { grammar } : {}),
            maxTokens: 200,
            temperature: 0,
            // a small model under a JSON grammar may loop on whitespace, which the session holds back unshown
            repeatPenalty: { penalty: 1.3, penalizeNewLine: true },
            signal: abort.signal,
            onTextChunk: (t) => {
              note({ chunk: t, at: Date.now() });
              progress.report(new vscode.LanguageModelTextPart(t));
            },
          });
          note({ end: Date.now() });
        } catch (e) {
          note({ error: String(e), at: Date.now() });
          throw e;
        } finally {
          session.dispose();
        }
      },
      async provideTokenCount(model, text) {
        const s = typeof text === 'string' ? text : textOf(text);
        const { context: ctx } = await load();
        return ctx.model.tokenize(s).length;
      },
    }),
  );
};
