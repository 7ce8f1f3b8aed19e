import type { Key } from "ink";

/** What one keypress did to a one-line text field. */
export type LineEdit =
  | { readonly kind: "edit"; readonly value: string }
  | { readonly kind: "submit"; readonly value: string }
  | { readonly kind: "cancel" };

/** Applies a keypress to a one-line field: printable text appends, backspace deletes, ⏎ submits, Esc cancels. */
export const editLine = (value: string, input: string, key: Key): LineEdit => {
  if (key.return) return { kind: "submit", value };
  if (key.escape) return { kind: "cancel" };
  if (key.backspace || key.delete) return { kind: "edit", value: value.slice(0, -1) };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) return { kind: "edit", value };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is filtered out.
  return { kind: "edit", value: (value + input.replace(/[\u0000-\u001f\u007f]/g, "")).slice(0, 200) };
};
