//! Read-only ELF analysis over bytes: dynamic symbols, versions, needed libraries, demangling, and classification of missing symbols against exported ones.
