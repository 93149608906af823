// gopls's diagnostics of a file its build leaves out (gopls_coverage.ts), asked instead of awaited.
// gopls checks such a file in a view of another GOOS that it makes for it once the file is open
// (`//go:build darwin || freebsd` under darwin, `//go:build ignore` as a package of its own), and
// that view's push races the default view's empty one: with the files of go-isatty opened
// together, gopls v0.23 pushed isatty_bsd.go's type error or, as often, only `[]`, and the sweep
// counted the file clean. Asked with textDocument/diagnostic, which gopls answers though it does
// not announce it (with `"kind": ""`), it type-checks the file in that view every time; for a file
// no build holds (a custom tag) it answers null or "no package metadata for file", and the file is
// said to be not checked.
import type * as proto from "vscode-languageserver-protocol";
import { baseName as basename } from "../src/lsp/client_util.ts";
import { LspGateError } from "../src/errors.ts";
import type { DiagnosticsHook } from "../src/lsp/diagnostics_hook.ts";
import { buildOf, constraintMatches, nameMatches, someBuildHolds } from "./go_build.ts";

/** See the file comment; a file in gopls's build is left to its pushes. */
export const goplsDiagnostics: DiagnosticsHook = async (context) => {
  // Its name only (node:url's reader is no API the client's code may load: client_wall_test).
  const path = context.uri.startsWith("file:")
    ? decodeURIComponent(new URL(context.uri).pathname)
    : undefined;
  const build = buildOf(context.options);
  if (!path?.endsWith(".go") || context.text === undefined) return undefined;
  // The go tool passes over testdata/ and what begins with _ or . : no build holds those.
  const root = context.options.root;
  const rel = path.startsWith(root + "/") ? path.slice(root.length + 1) : basename(path);
  if (rel.split("/").some((part) => part === "testdata" || /^[._]/.test(part))) {
    return {
      unchecked: "the go tool passes over files in testdata/ and in folders or files whose " +
        "names begin with _ or . (no build holds it): not checked",
    };
  }
  if (nameMatches(basename(path), build) && constraintMatches(context.text, build)) {
    return undefined;
  }
  if (!someBuildHolds(basename(path), context.text, build)) {
    return {
      unchecked: "no GOOS and GOARCH holds it, only a build tag gopls does not set (such as " +
        "ignore or race): not checked",
    };
  }
  const unchecked = `gopls's build (${build.os}/${build.arch}) leaves it out (build ` +
    "constraints), and gopls";
  const noBuild = { unchecked: `${unchecked} found no other build that holds it: not checked` };
  let report: proto.DocumentDiagnosticReport | null;
  try {
    report = await context.request<proto.DocumentDiagnosticReport | null>(
      "textDocument/diagnostic",
      { textDocument: { uri: context.uri } },
    );
  } catch (error) {
    if (!(error instanceof LspGateError) || error.code !== "LSP_ERROR") throw error;
    // Said as null, or as "no package metadata for file …", by turns.
    if (/no package/i.test(error.message)) return noBuild;
    return { unchecked: `${unchecked} did not answer for it: ${error.message}` };
  }
  const items = (report as proto.FullDocumentDiagnosticReport | null)?.items;
  if (Array.isArray(items)) return items;
  return noBuild;
};
