import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

/** kotlin-language-server. Untested here: written from its documentation. */
export const kotlinAdapter = refusingProjectCode(
  commandAdapter({
    id: "kotlin",
    tested: false,
    command: ["kotlin-language-server"],
    languages: { ".kt": "kotlin", ".kts": "kotlin" },
    rootMarkers: [
      "settings.gradle.kts",
      "settings.gradle",
      "build.gradle.kts",
      "build.gradle",
      "pom.xml",
    ],
    installHint: "Install kotlin-language-server so it is on PATH " +
      "(e.g. `brew install kotlin-language-server`, or its release archive's bin/).",
    readiness: "progress",
  }),
  {
    files: /^(settings|build)\.gradle(\.kts)?$/,
    what: "runs Gradle build scripts",
  },
);
