// Outline queries for Ruby; see ../outline.ts for the capture conventions.

/** Ruby: classes, modules, methods, constants, attribute accessors. */
export const RUBY = `
(class name: (_) @name) @class
(module name: (_) @name) @module
(method name: (_) @name) @method
(singleton_method name: (_) @name) @method
(assignment left: (constant) @name) @constant
(call
  method: (identifier) @_accessor
  (#match? @_accessor "^attr_(reader|writer|accessor)$")
  arguments: (argument_list (simple_symbol) @name)) @property
`;
