// The action table as a session uses it: every action's name at once, each action's module loaded
// when a request first names it. A cold session then loads what its first request needs (a
// definition: navigation.ts's graph) before it starts that request's server, not every action's
// (table.ts, which the library, MCP's tool description and doctor use, holds them all).
import type { ActionDef } from "./types.ts";

type Loader = () => Promise<readonly ActionDef[]>;

const navigation: Loader = () =>
  import("./navigation.ts").then((m) => [...m.gotoActions, m.referencesAction]);
const hover: Loader = () => import("./hover.ts").then((m) => [m.hoverAction, m.signatureAction]);
const symbols: Loader = () => import("./symbols.ts").then((m) => [m.symbolsAction]);
const diagnostics: Loader = () => import("./diagnostics.ts").then((m) => [m.diagnosticsAction]);
const hierarchy: Loader = () =>
  import("./hierarchy.ts").then((m) => [...m.callActions, ...m.typeActions]);
const edits: Loader = () => import("./edits.ts").then((m) => m.editActions);
const info: Loader = () =>
  import("./info.ts").then((m) => [m.statusAction, m.serversAction, m.capabilitiesAction]);
const admin: Loader = () => import("./admin.ts").then((m) => [m.requestAction, m.restartAction]);

/** Every action's name and the module defining it, in table.ts's order (a test keeps them equal). */
const WHERE: ReadonlyMap<string, Loader> = new Map([
  ["definition", navigation],
  ["declaration", navigation],
  ["type_definition", navigation],
  ["implementation", navigation],
  ["references", navigation],
  ["hover", hover],
  ["signature", hover],
  ["symbols", symbols],
  ["diagnostics", diagnostics],
  ["call_hierarchy", hierarchy],
  ["incoming_calls", hierarchy],
  ["outgoing_calls", hierarchy],
  ["supertypes", hierarchy],
  ["subtypes", hierarchy],
  ["rename", edits],
  ["rename_file", edits],
  ["format", edits],
  ["code_actions", edits],
  ["status", info],
  ["servers", info],
  ["capabilities", info],
  ["request", admin],
  ["restart", admin],
]);

/** Every action's canonical name, in the table's order. */
export const ACTION_NAMES: readonly string[] = [...WHERE.keys()];

const loaded = new Map<string, Promise<ActionDef | undefined>>();

/** The action named `name` as table.ts has it (its syntax fallback included), or undefined. */
export function loadAction(name: string): Promise<ActionDef | undefined> {
  const load = WHERE.get(name);
  if (!load) return Promise.resolve(undefined);
  let action = loaded.get(name);
  if (!action) {
    action = Promise.all([load(), import("./syntax_explain.ts")]).then(([defs, { withSyntax }]) => {
      const def = defs.find((d) => d.name === name);
      return def && withSyntax(def);
    });
    loaded.set(name, action);
  }
  return action;
}
