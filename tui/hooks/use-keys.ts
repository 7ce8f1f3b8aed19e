import { type Key, useInput } from "ink";
import { createContext, createElement, type ReactNode, useContext, useLayoutEffect, useRef } from "react";

type Handler = (input: string, key: Key) => void;

/** One component's key handler as of its latest render, and whether it listens now. */
interface Listener {
  readonly handler: Handler;
  readonly active: boolean;
}

type Listeners = Set<{ current: Listener }>;

const KeyListeners = createContext<Listeners | null>(null);

/**
 * The TUI's one subscription to Ink's input, passing each key to the listeners
 * of `useKeys` below it, in the order they were first drawn (the App before its
 * screens). Ink's own `useInput` subscribes in an effect, after the frame is
 * drawn: a key pressed right after a screen appeared (typed fast, pasted, sent
 * by tmux) reached nobody and was lost.
 */
export const KeysRoot = ({ children }: { readonly children: ReactNode }) => {
  const listeners = useRef<Listeners>(new Set()).current;
  useInput((input, key) => {
    for (const listener of [...listeners]) if (listener.current.active) listener.current.handler(input, key);
  });
  return createElement(KeyListeners.Provider, { value: listeners }, children);
};

/**
 * Calls `handler` for each key while `isActive` is not false. The handler
 * always sees the latest render, and a component hears keys from its first
 * frame on: it joins the listeners while rendering, not in an effect.
 */
export const useKeys = (handler: Handler, options: { readonly isActive?: boolean } = {}): void => {
  const listeners = useContext(KeyListeners);
  if (listeners === null) throw new Error("useKeys needs a KeysRoot above it");
  const self = useRef<Listener>({ handler, active: options.isActive !== false });
  self.current = { handler, active: options.isActive !== false };
  listeners.add(self);
  useLayoutEffect(
    () => () => {
      listeners.delete(self);
    },
    [listeners],
  );
};
