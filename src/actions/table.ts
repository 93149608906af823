import { requestAction, restartAction } from "./admin.ts";
import { diagnosticsAction } from "./diagnostics.ts";
import { callActions, typeActions } from "./hierarchy.ts";
import { hoverAction, signatureAction } from "./hover.ts";
import { capabilitiesAction, serversAction, statusAction } from "./info.ts";
import { gotoActions, referencesAction } from "./navigation.ts";
import { symbolsAction } from "./symbols.ts";
import { withSyntax } from "./syntax_explain.ts";
import { editActions } from "./edits.ts";
import type { ActionDef } from "./types.ts";

/** Every action by canonical name: schema, access class, and how to run it. */
export const ACTIONS: ReadonlyMap<string, ActionDef> = new Map(
  [
    ...gotoActions,
    referencesAction,
    hoverAction,
    signatureAction,
    symbolsAction,
    diagnosticsAction,
    ...callActions,
    ...typeActions,
    ...editActions,
    statusAction,
    serversAction,
    capabilitiesAction,
    requestAction,
    restartAction,
  ].map((action) => [action.name, withSyntax(action)]),
);
