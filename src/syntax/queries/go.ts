// Outline queries for Go; see ../outline.ts for the capture conventions.

/** Go: functions, methods (their receiver type as container), types, fields, consts, vars. */
export const GO = `
(function_declaration name: (identifier) @name) @function
(method_declaration
  receiver: (parameter_list (parameter_declaration
    type: [(type_identifier) @container
           (pointer_type (type_identifier) @container)
           (generic_type type: (type_identifier) @container)
           (pointer_type (generic_type type: (type_identifier) @container))]))
  name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name type: (struct_type)) @struct
(type_spec name: (type_identifier) @name type: (interface_type)) @interface
(type_spec name: (type_identifier) @name) @class
(type_alias name: (type_identifier) @name) @type_parameter
(field_declaration name: (field_identifier) @name) @field
(method_elem name: (field_identifier) @name) @method
(const_spec name: (identifier) @name) @constant
(var_spec name: (identifier) @name) @variable
`;
