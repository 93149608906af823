// Outline queries for JavaScript, TypeScript and TSX. Each pattern captures a definition as its
// kind (a SymbolKind word) and its `@name`; see ../outline.ts for the capture conventions.

/** Patterns both grammars share (TypeScript's extends JavaScript's). */
const COMMON = `
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @constructor
(method_definition name: (_) @name) @method
(lexical_declaration "const" (variable_declarator name: (identifier) @name) @constant)
(lexical_declaration (variable_declarator name: (identifier) @name) @variable)
(variable_declaration (variable_declarator name: (identifier) @name) @variable)
(variable_declarator value: (object (pair key: (_) @name) @property))
`;

/** JavaScript (and JSX). */
export const JAVASCRIPT = COMMON + `
(class_declaration name: (identifier) @name) @class
(field_definition property: (_) @name) @property
`;

/** TypeScript and TSX. */
export const TYPESCRIPT = COMMON + `
(function_signature name: (identifier) @name) @function
(class_declaration name: (type_identifier) @name) @class
(abstract_class_declaration name: (type_identifier) @name) @class
(public_field_definition name: (_) @name) @property
(abstract_method_signature name: (_) @name) @method
(interface_declaration name: (type_identifier) @name) @interface
(property_signature name: (_) @name) @property
(method_signature name: (_) @name) @method
(type_alias_declaration name: (type_identifier) @name) @type_parameter
(enum_declaration name: (identifier) @name) @enum
(enum_body (property_identifier) @name @enum_member)
(enum_assignment name: (property_identifier) @name) @enum_member
(internal_module name: (_) @name) @module
(module name: (_) @name) @module
(method_definition
  name: (property_identifier) @_constructor (#eq? @_constructor "constructor")
  parameters: (formal_parameters
    (required_parameter (accessibility_modifier) pattern: (identifier) @name) @property.up))
(method_definition
  name: (property_identifier) @_constructor (#eq? @_constructor "constructor")
  parameters: (formal_parameters
    (required_parameter "readonly" pattern: (identifier) @name) @property.up))
`;
