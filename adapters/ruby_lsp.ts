import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

const ruby = {
  languages: { ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby" },
  filenames: { "Gemfile": "ruby", "Rakefile": "ruby" },
  rootMarkers: ["Gemfile", ".ruby-version"],
};

/** Shopify's ruby-lsp. Untested here: written from its documentation. */
export const rubyLspAdapter = refusingProjectCode(
  commandAdapter({
    id: "ruby-lsp",
    tested: false,
    command: ["ruby-lsp"],
    ...ruby,
    installHint: "Install ruby-lsp: `gem install ruby-lsp`.",
  }),
  {
    files: /^(Gemfile|gems\.rb)$/,
    what: "runs Bundler on the Gemfile (Ruby)",
  },
);

/** Solargraph, for Ruby where ruby-lsp is not installed. Untested here. */
export const solargraphAdapter = commandAdapter({
  id: "solargraph",
  tested: false,
  command: ["solargraph", "stdio"],
  ...ruby,
  priority: 9,
  installHint: "Install Solargraph: `gem install solargraph`.",
});
