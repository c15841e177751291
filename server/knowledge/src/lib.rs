//! Field knowledge compiled in as data: extension packages, compatibility tables, model families and the offline torch symbol index.
