// Outline queries for Python; see ../outline.ts for the capture conventions.

/** Python: classes, functions, assignments, loop and `with` targets, `self.x` attributes. */
export const PYTHON = `
(class_definition name: (identifier) @name) @class
(function_definition name: (identifier) @name) @function
(assignment left: (identifier) @name) @variable
(assignment left: (pattern_list (identifier) @name)) @variable
(assignment left: (tuple_pattern (identifier) @name)) @variable
(for_statement left: (identifier) @name @variable)
(for_statement left: (pattern_list (identifier) @name @variable))
(with_item value: (as_pattern alias: (as_pattern_target (identifier) @name @variable)))
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @name)
  (#eq? @_self "self")) @variable.up
`;
