import { useEffect } from "react";

/** Tells App whether this screen is reading text or a confirmation; released when the screen goes. */
export const useLock = (onLock: (locked: boolean) => void, locked: boolean): void => {
  useEffect(() => {
    onLock(locked);
    return () => onLock(false);
  }, [onLock, locked]);
};
