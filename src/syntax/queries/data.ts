// Outline queries for JSON and YAML: keys, by the kind of value they hold; see ../outline.ts.

/** JSON: each key, named by its text, kinded by its value. */
export const JSON_KEYS = `
(pair key: (string (string_content) @name) value: (object)) @object
(pair key: (string (string_content) @name) value: (array)) @array
(pair key: (string (string_content) @name) value: (string)) @string
(pair key: (string (string_content) @name) value: (number)) @number
(pair key: (string (string_content) @name) value: [(true) (false)]) @boolean
(pair key: (string (string_content) @name) value: (null)) @null
(pair key: (string (string_content) @name)) @key
`;

/** YAML: each mapping key, kinded by its value. */
export const YAML_KEYS = `
(block_mapping_pair
  key: (flow_node [(plain_scalar) (single_quote_scalar) (double_quote_scalar)] @name)
  value: (block_node (block_mapping))) @object
(block_mapping_pair
  key: (flow_node [(plain_scalar) (single_quote_scalar) (double_quote_scalar)] @name)
  value: (block_node (block_sequence))) @array
(block_mapping_pair
  key: (flow_node [(plain_scalar) (single_quote_scalar) (double_quote_scalar)] @name)) @key
(flow_pair
  key: (flow_node [(plain_scalar) (single_quote_scalar) (double_quote_scalar)] @name)) @key
`;
