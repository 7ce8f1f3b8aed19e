import { type ServiceProcess, startServiceProcess } from "../../src/cluster/ServiceProcess.js";
import { PROCESS_DEADLINE_MS } from "./runTs.js";

/** The service running some roles in an OS process of its own, as `npm start -- --roles ...` does. */
export interface RoleProcess extends Omit<ServiceProcess, "waitFor"> {
  /** Resolves once its output contains `text`; rejects if it exits first or after `timeoutMs`. */
  readonly waitFor: (text: string, timeoutMs?: number) => Promise<void>;
}

/** Starts `src/main.ts --roles <roles>` with `env` on top of this process's environment. */
export const startRoleProcess = (roles: string, env: NodeJS.ProcessEnv): RoleProcess => {
  const process = startServiceProcess(roles, env);
  return { ...process, waitFor: (text, timeoutMs = PROCESS_DEADLINE_MS) => process.waitFor(text, timeoutMs) };
};
