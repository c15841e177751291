//! Language Server Protocol glue over `abidoc-ide`: documents, notebooks, conversion to and from protocol types.
