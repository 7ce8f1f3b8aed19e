import type { ChainView } from "./chainView.js";
import type { Settings } from "./settings.js";

/** What a rule judges one call by: the request's settings and its view of the chain. */
export interface RuleContext {
  readonly settings: Settings;
  readonly view: ChainView;
}
