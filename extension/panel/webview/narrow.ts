// How wide the panel's drawings are (issue 44): beside the editor the panel is about 300 px wide,
// and the lanes and token rows, drawn at least 360 px wide with a 150 px label column, scrolled
// sideways there. They now take the width they are given down to MIN_DRAW_W (narrower than any
// side panel), and their label column shrinks with them. No DOM (test/extension/panel-narrow.test.ts).

/** the narrowest a drawing is made: below it the panel scrolls sideways */
export const MIN_DRAW_W = 200;
/** the label column at full width, and the narrowest it gets */
const LABEL_MAX = 150;
const LABEL_MIN = 64;
/** the average width of a label's character at the panel's 11 px font */
const CHAR_W = 6.6;

/** The width a drawing takes in `available` pixels. */
export function drawWidth(available: number): number {
  return Math.max(MIN_DRAW_W, Math.floor(Number.isFinite(available) ? available : 0));
}

/** The label column of a drawing `width` pixels wide (lanes, token rows): 150 px, down to 64 when narrow. */
export function labelWidth(width: number): number {
  return Math.round(Math.min(LABEL_MAX, Math.max(LABEL_MIN, width * 0.3)));
}

/** A label cut with an ellipsis to what fits in a label column `labelW` pixels wide. */
export function fitLabel(label: string, labelW: number): string {
  const chars = Math.max(3, Math.floor((labelW - 4) / CHAR_W));
  return label.length > chars ? `${label.slice(0, chars - 1)}…` : label;
}
