import { type Key, useInput } from "ink";
import { useCallback, useRef } from "react";

type Handler = (input: string, key: Key) => void;

/**
 * `useInput` with a handler that always sees the latest render: Ink swaps
 * handlers in an effect, after the frame is drawn, so a key pressed right after
 * new data appears would otherwise reach the previous render's handler.
 */
export const useKeys = (handler: Handler, options: { readonly isActive?: boolean } = {}): void => {
  const latest = useRef(handler);
  latest.current = handler;
  const stable = useCallback<Handler>((input, key) => latest.current(input, key), []);
  useInput(stable, options.isActive === undefined ? {} : { isActive: options.isActive });
};
