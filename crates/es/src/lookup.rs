//! Mapping lookup (F05): the question's terms mapped to fields, values, dates and ranges.
