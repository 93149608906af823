/**
 * The permission layer: WorkspaceRoot vouches for paths (realpath'd and
 * contained) and does the tool's file I/O; decide() says who may run what.
 *
 * @module
 */
export {
  type GlobOptions,
  type GlobResult,
  type ReadTextOptions,
  type ResolveOptions,
  type WorkspacePath,
  WorkspaceRoot,
  type WorkspaceRootOptions,
} from "./workspace.ts";
export {
  type Access,
  accessForRawMethod,
  decide,
  type Decision,
  enforce,
  type PolicyRequest,
  READONLY_LSP_METHODS,
  type Role,
} from "./policy.ts";
export { DEFAULT_SKIPPED_FOLDERS } from "./walk.ts";
