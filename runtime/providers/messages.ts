// The chat turns every chat provider sends, from a request: the system text (P0), one user turn
// (P2 + P1 entries, then the task), then per rejected attempt the rejected reply and the
// validation errors. Turn order and bytes are fixed, so an unchanged context is a shared prefix.
import { userText } from '../context/render.js';
import { feedbackText } from '../infer/prompt.js';
import type { InferRequest } from '../infer/types.js';

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export function chatTurns(request: InferRequest): { system: string; turns: ChatTurn[] } {
  const turns: ChatTurn[] = [{ role: 'user', content: userText(request.rendered) }];
  for (const f of request.feedback) {
    turns.push({ role: 'assistant', content: f.reply.length > 0 ? f.reply : '(an empty reply)' }); // APIs refuse empty turns
    turns.push({ role: 'user', content: feedbackText(f) });
  }
  return { system: request.rendered.system, turns };
}
