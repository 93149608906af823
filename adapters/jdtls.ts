import { commandAdapter } from "../src/servers/command_adapter.ts";

/**
 * Eclipse JDT Language Server for Java. Untested here: written from its documentation. Its
 * `jdtls` launcher keeps per-project data in a folder of its own (`-data`).
 */
export const jdtlsAdapter = commandAdapter({
  id: "jdtls",
  tested: false,
  command: ["jdtls"],
  languages: { ".java": "java" },
  rootMarkers: [
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    ".project",
  ],
  installHint: "Install Eclipse JDT Language Server so `jdtls` is on PATH " +
    "(e.g. `brew install jdtls`, or its release archive's bin/jdtls).",
  // It indexes the project before answering, and says so with progress.
  readiness: "progress",
});
