// Outline queries for Bash; see ../outline.ts for the capture conventions.

/** Bash: functions and variables (a function's own assignments are its locals, left out). */
export const BASH = `
(function_definition name: (word) @name) @function
(variable_assignment name: (variable_name) @name) @variable
(declaration_command (variable_assignment name: (variable_name) @name) @variable)
`;
