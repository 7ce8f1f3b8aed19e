import { useCallback, useRef, useState } from "react";

/**
 * A screen's view state (cursor, mode, text being typed) whose updates apply at
 * once, so keys arriving together (a paste, tmux send-keys) each see the state
 * the previous key left, not the last render's.
 */
export const useViewState = <S extends object>(initial: S) => {
  const [state, setState] = useState(initial);
  const ref = useRef(state);
  const update = useCallback((patch: Partial<S> | ((current: S) => Partial<S>)) => {
    ref.current = { ...ref.current, ...(typeof patch === "function" ? patch(ref.current) : patch) };
    setState(ref.current);
  }, []);
  return [state, update, ref] as const;
};
