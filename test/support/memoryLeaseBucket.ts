import { Effect } from "effect";
import {
  LeaseConflict,
  type LeaseEntry,
  type LeaseStore,
  LeaseStoreError,
} from "../../src/ingest/lease/LeaseStore.js";

/** One bucket shared by several processes, each seeing it through its own view that can be cut off (as by kill -9). */
export const memoryBucket = () => {
  const entries = new Map<string, LeaseEntry>();
  let revision = 0;
  const view = () => {
    let cut = false;
    const reachable = <A>(key: string, op: () => A) =>
      cut ? Effect.fail(new LeaseStoreError({ key, cause: new Error("process gone") })) : Effect.sync(op);
    const store: LeaseStore = {
      read: (key) => reachable(key, () => entries.get(key)),
      create: (key, record) =>
        Effect.flatMap(
          reachable(key, () => entries.has(key)),
          (exists) =>
            exists
              ? Effect.fail(new LeaseConflict({ key }))
              : Effect.sync(() => {
                  entries.set(key, { record, revision: ++revision });
                  return revision;
                }),
        ),
      update: (key, record, expected) =>
        Effect.flatMap(
          reachable(key, () => entries.get(key)?.revision),
          (current) =>
            current !== expected
              ? Effect.fail(new LeaseConflict({ key }))
              : Effect.sync(() => {
                  entries.set(key, { record, revision: ++revision });
                  return revision;
                }),
        ),
    };
    const cutOff = () => {
      cut = true;
    };
    return { store, cutOff };
  };
  return { view, owner: (key: string) => entries.get(key)?.record.owner };
};
