//! Mapping inference from records.
