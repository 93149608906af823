import { commandAdapter } from "../src/servers/command_adapter.ts";

/** ocaml-lsp-server (`ocamllsp`). Untested here: written from its documentation. */
export const ocamlAdapter = commandAdapter({
  id: "ocaml",
  tested: false,
  command: ["ocamllsp"],
  languages: { ".ml": "ocaml", ".mli": "ocaml.interface", ".mll": "ocaml.ocamllex" },
  rootMarkers: ["dune-project", "dune-workspace", ".merlin"],
  installHint: "Install ocaml-lsp-server: `opam install ocaml-lsp-server`.",
});
