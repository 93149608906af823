// Outline queries for Rust; see ../outline.ts for the capture conventions.

/** Rust: items, with an impl's methods under the type it implements. */
export const RUST = `
(impl_item
  type: [(type_identifier) @container
         (generic_type type: (type_identifier) @container)
         (scoped_type_identifier name: (type_identifier) @container)]
  body: (declaration_list (function_item name: (identifier) @name) @method))
(impl_item
  type: [(type_identifier) @container
         (generic_type type: (type_identifier) @container)]
  body: (declaration_list (const_item name: (identifier) @name) @constant))
(impl_item
  type: [(type_identifier) @container
         (generic_type type: (type_identifier) @container)]
  body: (declaration_list (type_item name: (type_identifier) @name) @type_parameter))
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @method
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(enum_variant name: (identifier) @name) @enum_member
(trait_item name: (type_identifier) @name) @interface
(mod_item name: (identifier) @name) @module
(const_item name: (identifier) @name) @constant
(static_item name: (identifier) @name) @variable
(type_item name: (type_identifier) @name) @type_parameter
(macro_definition name: (identifier) @name) @function
(field_declaration name: (field_identifier) @name) @field
`;
