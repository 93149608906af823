// Outline queries for C and C++; see ../outline.ts for the capture conventions.

/** Declarations C and C++ share. */
const COMMON = `
(function_definition declarator: (function_declarator declarator: (_) @name)) @function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name))) @function
(translation_unit (declaration declarator: (function_declarator declarator: (_) @name)) @function)
(translation_unit
  (declaration
    declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name))) @function)
(struct_specifier name: (type_identifier) @name body: (_)) @struct
(union_specifier name: (type_identifier) @name body: (_)) @struct
(enum_specifier name: (type_identifier) @name body: (_)) @enum
(enumerator name: (identifier) @name) @enum_member
(field_declaration declarator: (field_identifier) @name) @field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @field
(type_definition declarator: (type_identifier) @name) @type_parameter
(preproc_def name: (identifier) @name) @constant
(preproc_function_def name: (identifier) @name) @function
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @variable)
(translation_unit (declaration declarator: (identifier) @name) @variable)
(translation_unit
  (declaration
    declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))) @variable)
(translation_unit (declaration declarator: (array_declarator declarator: (identifier) @name)) @variable)
`;

/** C. */
export const C = COMMON;

/** C++: C's declarations plus classes, namespaces, methods and aliases. */
export const CPP = COMMON + `
(class_specifier name: (type_identifier) @name body: (_)) @class
(namespace_definition name: (namespace_identifier) @name) @namespace
(field_declaration declarator: (function_declarator declarator: (_) @name)) @method
(field_declaration_list
  (declaration declarator: (function_declarator declarator: (identifier) @name)) @constructor)
(field_declaration_list
  (declaration declarator: (function_declarator declarator: (destructor_name) @name)) @method)
(namespace_definition body: (declaration_list
  (declaration declarator: (function_declarator declarator: (_) @name)) @function))
(namespace_definition body: (declaration_list
  (declaration declarator: (init_declarator declarator: (identifier) @name)) @variable))
(alias_declaration name: (type_identifier) @name) @type_parameter
(concept_definition name: (identifier) @name) @interface
`;
